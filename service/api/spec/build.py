"""``openapi.yaml`` from its sources (see the package's docstring): ``build`` makes the
document for a set of games, ``dump`` writes it as YAML.

Every game's schemas are named after the game's title without spaces (``<Game>State``,
``<Game>Move``, ``<Game>Options``), so two games never share a schema; the unions over the
games are discriminated on ``game`` (a view, a request, a table, a tournament) and the
unions over a game's actions, decisions and events on ``type``: shapes the code generators
(openapi-typescript, @hey-api/openapi-ts, openapi-python-client) narrow on.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml
from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from marshmallow import Schema

from domain.engine.departures import RESIGN
from domain.engine.game import Contract, Game, GameInfo
from domain.engine.status import GameStatus
from domain.engine.types import DECISION, GAME_CREATED, GAME_OVER, RANDOM, SEED_REVEALED, TIMEOUT
from service.api.schemas import games as game_schemas
from service.api.schemas import keys as key_schemas
from service.api.schemas import tables as table_schemas
from service.api.schemas import tournaments as tournament_schemas

HERE = Path(__file__).resolve().parent
#: Each resource's operations, in the document's order.
RESOURCES = ("games", "tables", "tournaments", "replays", "keys", "health")
SCHEMAS = "#/components/schemas/"
JSON_SCHEMA = dict[str, Any]

#: The marshmallow schemas the document states, by schema name, nested ones first (apispec
#: refers to a nested schema by the name it was registered under). ``BY_GAME`` ones are one
#: schema per game in the document (a union discriminated on ``game``).
MARSHMALLOW: dict[str, type[Schema]] = {
    "ErrorDetail": game_schemas.ErrorDetailSchema,
    "Error": game_schemas.ErrorSchema,
    "NewPlayer": game_schemas.PlayerSchema,
    "Seat": game_schemas.SeatSchema,
    "CreatedSeat": game_schemas.CreatedSeatSchema,
    "GameCreated": game_schemas.GameCreatedSchema,
    "Receipt": game_schemas.ReceiptSchema,
    "Event": game_schemas.EventSchema,
    "ActionAccepted": game_schemas.ActionAcceptedSchema,
    "EventsPage": game_schemas.EventsPageSchema,
    "LegalActions": game_schemas.LegalActionsSchema,
    "GameSummary": game_schemas.GameSummarySchema,
    "GameList": game_schemas.GameListSchema,
    "BotFailure": game_schemas.BotFailureSchema,
    "StoreSafety": game_schemas.StoreSafetySchema,
    "Health": game_schemas.HealthSchema,
    "PostActionRequest": game_schemas.PostActionSchema,
    "CreateGameRequest": game_schemas.CreateGameSchema,
    "GameView": game_schemas.GameViewSchema,
    "SeatRequest": table_schemas.SeatRequestSchema,
    "OpenTableRequest": table_schemas.OpenTableSchema,
    "JoinTableRequest": table_schemas.JoinTableSchema,
    "TableSeat": table_schemas.TableSeatSchema,
    "Table": table_schemas.TableSchema,
    "SeatToken": table_schemas.SeatTokenSchema,
    "TableOpened": table_schemas.TableOpenedSchema,
    "TableJoined": table_schemas.TableJoinedSchema,
    "TableList": table_schemas.TableListSchema,
    "Correction": tournament_schemas.CorrectionSchema,
    "TournamentEntrant": tournament_schemas.TournamentEntrantSchema,
    "TournamentEntered": tournament_schemas.EnteredSchema,
    "TournamentPlayer": tournament_schemas.TournamentPlayerSchema,
    "CreatedTournamentPlayer": tournament_schemas.CreatedPlayerSchema,
    "TournamentGame": tournament_schemas.TournamentGameSchema,
    "TournamentRound": tournament_schemas.TournamentRoundSchema,
    "Standing": tournament_schemas.StandingSchema,
    "CrosstableEntry": tournament_schemas.CrosstableEntrySchema,
    "CrosstableRow": tournament_schemas.CrosstableRowSchema,
    "Tournament": tournament_schemas.TournamentSchema,
    "TournamentCreated": tournament_schemas.TournamentCreatedSchema,
    "TournamentDecided": tournament_schemas.TournamentDecidedSchema,
    "CreateTournamentRequest": tournament_schemas.CreateTournamentSchema,
    "TournamentSummary": tournament_schemas.TournamentSummarySchema,
    "TournamentList": tournament_schemas.TournamentListSchema,
    "MyTournamentGame": tournament_schemas.MyGameSchema,
    "MyNextTournamentGame": tournament_schemas.MyNextSchema,
    "MyTournamentResult": tournament_schemas.MyResultSchema,
    "TournamentMe": tournament_schemas.TournamentMeSchema,
    "PlayerToken": tournament_schemas.PlayerTokenSchema,
    "ServiceKey": key_schemas.ServiceKeySchema,
    "ServiceKeys": key_schemas.ServiceKeysSchema,
}
#: The operations whose query parameters are a marshmallow schema's fields, stated from it (so
#: what the route loads and what the document says never differ); the operation's YAML
#: lists only parameters besides these.
QUERIES: dict[tuple[str, str], type[Schema]] = {
    ("/v1/games", "get"): game_schemas.GameSearchQuerySchema,
}
#: Stated once per game (``<Game><Name>``) and as their union (``<Name>``); the tournament
#: ones for competitive games only.
BY_GAME = ("GameView", "CreateGameRequest", "OpenTableRequest", "Table", "TableOpened")
BY_COMPETITIVE_GAME = (
    "Tournament",
    "TournamentCreated",
    "TournamentDecided",
    "CreateTournamentRequest",
)
#: The names a contract's schemas take besides its definitions (``#/$defs/<name>``).
CONTRACT_PARTS = ("Action", "State", "Pending", "Outcome", "Options")
#: The engine's own action, in every game's action union (``schemas.yaml``'s ``Resign``).
ENGINE_ACTIONS = {RESIGN: "Resign"}


def ref(name: str) -> JSON_SCHEMA:
    return {"$ref": SCHEMAS + name}


def nullable(schema: JSON_SCHEMA) -> JSON_SCHEMA:
    return {"oneOf": [schema, {"type": "null"}]}


def const(value: Any) -> JSON_SCHEMA:
    kind = {bool: "boolean", int: "integer", str: "string"}.get(type(value))
    return {"type": kind, "const": value} if kind else {"const": value}


def camel(words: str) -> str:
    """``keep_group`` -> ``KeepGroup``; ``Sea Otters`` -> ``SeaOtters``."""
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^0-9A-Za-z]+", words))


def prefix(info: GameInfo) -> str:
    """How the game's schemas are named: its title without spaces (``SeaOtters``)."""
    return camel(info.title)


def _yaml(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((HERE / name).read_text(encoding="utf-8"))
    return loaded


# ----- the marshmallow schemas ---------------------------------------------------------------


def _refined(node: Any) -> Any:
    """apispec's output as the document states it: a field documented with ``x-ref`` is the
    schema it names (or null, when the field allows it); ``required`` in field order."""
    if isinstance(node, list):
        return [_refined(item) for item in node]
    if not isinstance(node, dict):
        return node
    if "x-ref" in node:
        types = node.get("type", [])
        target = ref(node["x-ref"])
        out = nullable(target) if isinstance(types, list) and "null" in types else target
        return {"description": node["description"], **out} if "description" in node else out
    refined = {key: _refined(value) for key, value in node.items()}
    if "properties" in refined:
        # A request field's default (its ``load_default``) is said in its description, not
        # given as ``default``, which code generators read as "always present".
        for field in refined["properties"].values():
            field.pop("default", None)
    if "properties" in refined and "required" in refined:
        refined["required"] = [key for key in refined["properties"] if key in refined["required"]]
    return refined


def marshmallow_schemas() -> dict[str, JSON_SCHEMA]:
    """Every body schema as apispec states it from its marshmallow schema, refined."""
    spec = APISpec(
        title="Floe API", version="1", openapi_version="3.1.0", plugins=[MarshmallowPlugin()]
    )
    for name, schema in MARSHMALLOW.items():
        spec.components.schema(name, schema=schema)
        if schema.__doc__:
            described = spec.components.schemas[name]
            described["description"] = " ".join(schema.__doc__.split()).replace("``", "`")
    found: dict[str, JSON_SCHEMA] = _refined(spec.to_dict()["components"]["schemas"])
    assert set(found) == set(MARSHMALLOW), f"apispec named schemas {set(found) - set(MARSHMALLOW)}"
    return found


def query_parameters(schema: type[Schema]) -> list[JSON_SCHEMA]:
    """``schema``'s fields as an operation's query parameters, each optional."""
    plugin = MarshmallowPlugin()
    APISpec(title="Floe API", version="1", openapi_version="3.1.0", plugins=[plugin])
    assert plugin.converter is not None
    stated = plugin.converter.schema2parameters(schema, location="query")
    return [
        {
            "name": parameter["name"],
            "in": "query",
            "required": False,
            "description": parameter.get("description", ""),
            "schema": _refined(parameter["schema"]),
        }
        for parameter in stated
    ]


# ----- the games -----------------------------------------------------------------------------


class GameSchemas:
    """One game's schemas under its own names, from its declaration and its contract."""

    def __init__(self, game: Game[Any]) -> None:
        self.info = game.info
        self.contract: Contract = game.contract
        self.prefix = prefix(self.info)
        self.schemas: dict[str, JSON_SCHEMA] = {}
        self._build()

    def name(self, part: str) -> str:
        return self.prefix + part

    def _local(self, node: Any) -> Any:
        """A contract's ``#/$defs/<name>`` as the document's ``<Game><name>``."""
        if isinstance(node, list):
            return [self._local(item) for item in node]
        if not isinstance(node, dict):
            return node
        target = node.get("$ref")
        if isinstance(target, str) and target.startswith("#/$defs/"):
            local = target.removeprefix("#/$defs/")
            if local not in self.contract.definitions and local not in CONTRACT_PARTS:
                raise ValueError(f"{self.info.name}'s contract refers to no {local!r}")
            return {**node, "$ref": SCHEMAS + self.name(local)}
        return {key: self._local(value) for key, value in node.items()}

    def add(self, name: str, schema: JSON_SCHEMA) -> None:
        if name in self.schemas:
            raise ValueError(f"{self.info.name}: two schemas named {name}")
        self.schemas[name] = self._local(schema)

    def _build(self) -> None:
        info, contract = self.info, self.contract
        self.add(self.name("Options"), self.options())
        reserved = sorted(set(contract.actions) & set(ENGINE_ACTIONS))
        if reserved:
            raise ValueError(f"{info.name}: {reserved[0]!r} is the engine's action, not a game's")
        actions = {self.name(camel(kind)): schema for kind, schema in contract.actions.items()}
        for name, schema in actions.items():
            self.add(name, schema)
        self.add(
            self.name("Action"),
            union(
                f"An action of {info.title}, discriminated on `type`; `resign` is every game's.",
                {
                    **{kind: self.name(camel(kind)) for kind in contract.actions},
                    **ENGINE_ACTIONS,
                },
                "type",
            ),
        )
        self.add(self.name("State"), contract.state)
        if contract.pending:
            for kind, schema in contract.pending.items():
                self.add(self.name("Pending" + camel(kind)), schema)
            self.add(
                self.name("Pending"),
                union(
                    f"A decision {info.title} waits for, answered by the action of its `type`.",
                    {kind: self.name("Pending" + camel(kind)) for kind in contract.pending},
                    "type",
                ),
            )
        self.add(self.name("Outcome"), contract.outcome)
        for label, draw in contract.draws.items():
            self.add(self.draw_name(label), self.draw(label, draw))
        for name, schema in contract.definitions.items():
            if name in CONTRACT_PARTS:
                raise ValueError(f"{info.name}: a definition may not be named {name}")
            self.add(self.name(name), schema)

    def draw_name(self, label: str) -> str:
        return self.name(camel(label) + "Draw")

    def draw(self, label: str, draw: Mapping[str, Any]) -> JSON_SCHEMA:
        return {
            "type": "object",
            "description": draw.get("description", ""),
            "required": ["label", "kind", "n", "outcome"],
            "additionalProperties": False,
            "properties": {
                "label": const(label),
                "kind": {"type": "string", **draw["kind"]},
                "n": {"type": "integer", **draw["n"]},
                "outcome": draw["outcome"],
            },
        }

    def options(self) -> JSON_SCHEMA:
        info = self.info
        return {
            "type": "object",
            "description": f"{info.title}'s options (rules version {info.rules_version}); "
            "absent ones take their defaults, unknown ones are refused (`unknown_option`).",
            "additionalProperties": False,
            "properties": {option.name: option.json_schema() for option in info.options},
        }

    def pending_or_null(self) -> JSON_SCHEMA:
        if self.contract.pending:
            return nullable(ref(self.name("Pending")))
        return {"type": "null"}

    def description(self) -> str:
        info = self.info
        seats = (
            f"{info.min_seats} to {info.max_seats} seats"
            if info.min_seats != info.max_seats
            else f"{info.min_seats} seats"
        )
        facts = (
            f"`{info.name}`: {info.summary}. {seats}; {info.play}; {info.information} "
            f"information; rules version `{info.rules_version}`. Options: `{self.name('Options')}`;"
            f" state: `{self.name('State')}`; actions: `{self.name('Action')}`."
        )
        return f"### {info.title}\n{facts}\n\n{self.contract.description}".strip()


def union(description: str, mapping: Mapping[str, str], on: str) -> JSON_SCHEMA:
    """One of ``mapping``'s schemas, discriminated on ``on``."""
    return {
        "description": description,
        "oneOf": [ref(name) for name in dict.fromkeys(mapping.values())],
        "discriminator": {
            "propertyName": on,
            "mapping": {k: SCHEMAS + v for k, v in mapping.items()},
        },
    }


# ----- the document --------------------------------------------------------------------------


class Builder:
    def __init__(self, games: Mapping[str, Game[Any]]) -> None:
        self.games = [GameSchemas(games[name]) for name in sorted(games)]
        self.competitive = [g for g in self.games if not g.info.cooperative]
        self.body = marshmallow_schemas()
        self.shared: dict[str, JSON_SCHEMA] = _yaml("schemas.yaml")["schemas"]
        self.schemas: dict[str, JSON_SCHEMA] = {}

    # -- schemas --

    def put(self, name: str, schema: JSON_SCHEMA) -> None:
        if name in self.schemas:
            raise ValueError(f"two schemas named {name}")
        self.schemas[name] = schema

    def variant(self, base: str, of: GameSchemas, /, **properties: Any) -> JSON_SCHEMA:
        """The marshmallow schema ``base`` for the game ``of``: ``properties`` replace its
        own."""
        schema = copy.deepcopy(self.body[base])
        schema["description"] = f"{of.info.title}: {schema.get('description', base)}"
        for key, value in properties.items():
            assert key in schema["properties"], f"{base} has no {key}"
            schema["properties"][key] = value
        return schema

    def by_game(self, base: str, games: list[GameSchemas], **extra: Any) -> None:
        for game in games:
            fields: dict[str, Any] = {"game": const(game.info.name)}
            properties = self.body[base]["properties"]
            if "options" in properties:
                fields["options"] = ref(game.name("Options"))
            for key, value in extra.items():
                fields[key] = value(game)
            self.put(game.name(base), self.variant(base, game, **fields))
        self.put(
            base,
            union(
                self.body[base].get("description", base) + " One per game, on `game`.",
                {game.info.name: game.name(base) for game in games},
                "game",
            ),
        )

    def seats(self, game: GameSchemas, items: JSON_SCHEMA) -> JSON_SCHEMA:
        info = game.info
        return {
            "type": "array",
            "minItems": info.min_seats,
            "maxItems": min(info.max_seats, 8),
            "description": f"The seats in order, seat 0 first ({info.min_seats} to "
            f"{info.max_seats}).",
            "items": items,
        }

    def views(self) -> None:
        status_rules = [
            {
                "if": {"required": ["status"], "properties": {"status": {"const": "over"}}},
                "then": {
                    "properties": {
                        "to_act": {"maxItems": 0},
                        "pending": {"type": "null"},
                        "outcome": {"not": {"type": "null"}},
                    }
                },
                "else": {"properties": {"outcome": {"type": "null"}}},
            },
            {
                "if": {
                    "required": ["status"],
                    "properties": {"status": {"const": GameStatus.AWAITING_RANDOM.value}},
                },
                "then": {"properties": {"to_act": {"maxItems": 0}}},
            },
        ]
        for game in self.games:
            schema = self.variant(
                "GameView",
                game,
                game=const(game.info.name),
                to_act={
                    "type": "array",
                    "description": "Seats with a legal action now, ascending.",
                    "maxItems": game.info.max_seats,
                    "uniqueItems": True,
                    "items": ref("SeatNumber"),
                },
                state=ref(game.name("State")),
                pending=game.pending_or_null(),
                outcome=nullable(
                    {
                        "description": "The game's own outcome, or the organizer's `result`.",
                        "anyOf": [ref(game.name("Outcome")), ref("DecidedOutcome")],
                    }
                ),
                left={
                    **copy.deepcopy(self.body["GameView"]["properties"]["left"]),
                    "maxItems": game.info.max_seats,
                    "uniqueItems": True,
                },
            )
            schema["allOf"] = copy.deepcopy(status_rules)
            self.put(game.name("View"), schema)
        self.put(
            "GameView",
            union(
                "A game as one viewer may see it, one schema per game, discriminated on `game`.",
                {game.info.name: game.name("View") for game in self.games},
                "game",
            ),
        )

    def requests(self) -> None:
        self.by_game(
            "CreateGameRequest",
            self.games,
            players=lambda game: self.seats(game, ref("NewPlayer")),
        )
        self.by_game(
            "OpenTableRequest", self.games, seats=lambda game: self.seats(game, ref("SeatRequest"))
        )
        seat_request = self.body["SeatRequest"]
        properties = seat_request["properties"]
        self.body["SeatRequest"] = {
            "description": 'A person who is here `{"name"}` (with their `public_key` if they '
            'sign), a bot `{"name", "bot"}`, or an open seat `{"open": true}` (no name, no '
            "bot, no key: a stranger brings them).",
            "oneOf": [
                {
                    "type": "object",
                    "required": ["open"],
                    "additionalProperties": False,
                    "properties": {
                        "open": const(True),
                        "bot": {"type": "null"},
                        "public_key": {"type": "null"},
                    },
                },
                {
                    "type": "object",
                    "required": ["name"],
                    "additionalProperties": False,
                    "properties": {
                        "name": properties["name"],
                        "bot": properties["bot"],
                        "open": const(False),
                        "public_key": properties["public_key"],
                    },
                },
            ],
        }

        def table_size(game: GameSchemas) -> JSON_SCHEMA:
            low, high = max(2, game.info.min_seats), min(4, game.info.max_seats)
            described = self.body["CreateTournamentRequest"]["properties"]["table_size"]
            return {**described, "minimum": low, "maximum": high}

        self.by_game("CreateTournamentRequest", self.competitive, table_size=table_size)
        for game in self.competitive:
            self.schemas[game.name("CreateTournamentRequest")]["allOf"] = [
                {
                    "description": "A swiss needs its number of rounds.",
                    "if": {"required": ["format"], "properties": {"format": {"const": "swiss"}}},
                    "then": {"required": ["rounds"], "properties": {"rounds": {"type": "integer"}}},
                },
                {
                    "description": "A round robin is played at tables of 2.",
                    "if": {
                        "required": ["format"],
                        "properties": {"format": {"const": "round_robin"}},
                    },
                    "then": {"properties": {"table_size": {"const": 2}}},
                },
            ]

    def events(self) -> None:
        base = self.body["Event"]
        action_types = sorted(
            {kind for game in self.games for kind in game.contract.actions} | set(ENGINE_ACTIONS)
        )
        system = {"actor": const("system"), "command_id": {"type": "null"}}
        variants: dict[str, tuple[list[str], dict[str, Any]]] = {
            "GameCreatedEvent": (
                [GAME_CREATED],
                {"version": const(1), "data": ref("GameCreatedData"), **system},
            ),
            "RandomEvent": ([RANDOM], {"data": ref("RandomData"), **system}),
            "TimeoutEvent": ([TIMEOUT], {"data": ref("TimeoutData"), **system}),
            "DecisionEvent": ([DECISION], {"data": ref("Decision"), **system}),
            "GameOverEvent": ([GAME_OVER], {"data": ref("Outcome"), **system}),
            "SeedRevealedEvent": ([SEED_REVEALED], {"data": ref("SeedRevealedData"), **system}),
            "ActionEvent": (
                action_types,
                {
                    "actor": ref("SeatNumber"),
                    "command_id": {"type": "string"},
                    "data": ref("ActionEventData"),
                },
            ),
        }
        for stored in (False, True):
            mapping: dict[str, str] = {}
            for name, (types, fields) in variants.items():
                schema = copy.deepcopy(base)
                schema["properties"].update(copy.deepcopy(fields))
                schema["properties"]["type"] = (
                    const(types[0]) if len(types) == 1 else {"type": "string", "enum": list(types)}
                )
                schema["dependentRequired"] = {"hash": ["prev_hash"], "prev_hash": ["hash"]}
                if name == "RandomEvent":
                    schema["dependentSchemas"] = {
                        "hash": {
                            "description": "Once hashes show, the game is over: nothing masked.",
                            "properties": {
                                "data": {"properties": {"outcome": {"not": {"type": "null"}}}}
                            },
                        }
                    }
                if stored:
                    del schema["properties"]["receipt"]  # an export's lines carry none
                    schema["required"] = [*schema["required"], "prev_hash", "hash"]
                    schema["description"] = (
                        "An export file's line: the stored event, hashes included, nothing masked."
                    )
                    name = "Stored" + name
                self.put(name, schema)
                mapping.update(dict.fromkeys(types, name))
            self.put(
                "StoredEvent" if stored else "Event",
                union(
                    "An export file's line, discriminated on `type`."
                    if stored
                    else "An event as a viewer sees it, discriminated on `type`: `game_created` "
                    "(version 1), `random` (a worker's draw), `timeout` (a seat's clock ran "
                    "out), `decision` (the organizer's, as posted), `game_over`, "
                    "`seed_revealed` (the system's, `command_id` null) or a seat's action "
                    "(`data.action`; `resign` too).",
                    mapping,
                    "type",
                ),
            )
        self.put(
            "ActionEventData",
            {
                "type": "object",
                "required": ["action"],
                "additionalProperties": False,
                "properties": {
                    "action": ref("GameAction"),
                    # A keyed seat's action is stored with the signature it was posted with.
                    "signature": ref("Signature"),
                },
            },
        )
        draws = [game.draw_name(label) for game in self.games for label in game.contract.draws]
        self.put(
            "RandomData",
            {
                "description": "A random draw a worker made from the game's seed: `label` says "
                "what for (each game's `<Game><Label>Draw`), `outcome` is null while secret. "
                "Anyone holding the seed recomputes it: the stream is HMAC-SHA256(seed, "
                "`<game_id>/<version>/<label>/<counter>`) for counter 0, 1, ...; a uniform "
                "integer below n reads 4-byte big-endian words w, skipping those at or above "
                "floor(2^32 / n) * n, and takes w mod n; a shuffle of n swaps item i with "
                "uniform(i + 1) for i from n - 1 down to 1; a derangement is the first shuffle "
                "with no fixed point. Test vector: 32 zero bytes, game `g1`, version 2, label "
                "`die`, uniform of 6: 5.",
                "anyOf": [ref(name) for name in draws],
            },
        )
        for game in self.games:
            self.put(
                game.name("GameCreatedData"),
                {
                    "type": "object",
                    "description": f"Event 1 of a {game.info.title} game.",
                    "required": ["game", "rules_version", "options", "seats", "seed_commitment"],
                    "additionalProperties": False,
                    "properties": {
                        "game": const(game.info.name),
                        "rules_version": {
                            "type": "string",
                            "description": "Pins every default and rule the game is played by.",
                        },
                        "options": ref(game.name("Options")),
                        "seats": {"type": "array", "items": ref("Seat")},
                        "seed_commitment": ref("Hex64"),
                        "tournament": ref("TournamentSlot"),
                        "clock": ref("Clock"),
                    },
                },
            )
        self.put(
            "GameCreatedData",
            union(
                "Event 1: the game, its rules version, its options as given, its seats, and "
                "its seed's commitment (and its `tournament` slot and `clock`, only when it "
                "has them); discriminated on `game`.",
                {game.info.name: game.name("GameCreatedData") for game in self.games},
                "game",
            ),
        )

    def tournament_export(self) -> None:
        round_ = copy.deepcopy(self.body["TournamentRound"])
        game = copy.deepcopy(self.body["TournamentGame"])
        # A game in line 1 is as its log ended it: no status, and a correction is its
        # decision's.
        for shown in ("status", "correction"):
            del game["properties"][shown]
            game["required"].remove(shown)
        round_["properties"]["games"]["items"] = game
        round_["description"] = (
            "A round in an export's line 1: its games without `status` nor `correction`."
        )
        self.put("TournamentExportRound", round_)
        player = copy.deepcopy(self.body["TournamentPlayer"])
        for shown in ("rating", "withdrawn"):
            del player["properties"][shown]
            player["required"].remove(shown)
        player["description"] = (
            "A player listed at creation (one entered later is named by its `enter` decision)."
        )
        # A key only for a person who has one, never null: a keyless manifest is as it was.
        player["required"].remove("public_key")
        player["properties"]["public_key"] = ref("PublicKey")
        self.put("TournamentExportPlayer", player)
        standing = copy.deepcopy(self.body["Standing"])
        for later in ("place", "tiebreaks"):  # rules version 2's, absent from version 1's
            standing["required"].remove(later)
        self.put("TournamentExportStanding", standing)
        for competitive in self.competitive:
            header = copy.deepcopy(self.schemas[competitive.name("Tournament")])
            # What the view shows of the moment (its status, a pause, the next round's time)
            # or computes from the rest (the crosstable) is no part of the manifest.
            for shown in ("status", "paused", "next_round_at", "crosstable"):
                del header["properties"][shown]
                header["required"].remove(shown)
            # The manifest names a clock, its rules' version, a round start other than "auto"
            # and the decisions only when the tournament has them (absent rules: version 1).
            for optional in (
                "clock",
                "rules_version",
                "max_players",
                "tiebreaks",
                "round_start",
                "decisions",
            ):
                header["required"].remove(optional)
            header["properties"]["ratings"] = {
                "type": ["array", "null"],
                "items": {"type": "integer"},
                "description": "Each listed player's rating, when the plan seeded by them.",
            }
            header["properties"]["players"]["items"] = ref("TournamentExportPlayer")
            header["properties"]["standings"]["items"] = ref("TournamentExportStanding")
            header["properties"]["clock"] = ref("Clock")
            header["properties"]["round_start"] = {
                "description": 'When each next round was made; absent for `"auto"`.',
                **ref("RoundStart"),
            }
            header["properties"]["decisions"]["minItems"] = 1
            # Absent for a tournament made before rosters were committed, never null.
            header["required"].remove("roster_commitment")
            header["properties"]["roster_commitment"] = {
                "description": "The SHA-256 hex of the players listed at creation; absent for "
                "a tournament made before rosters were committed.",
                **ref("Hex64"),
            }
            header["properties"]["rounds"]["items"] = ref("TournamentExportRound")
            header["description"] = f"A {competitive.info.title} tournament, as exported."
            self.put(competitive.name("TournamentExport"), header)
        self.put(
            "TournamentExportHeader",
            {
                "type": "object",
                "description": "Line 1 of a tournament's export file.",
                "required": ["tournament"],
                "additionalProperties": False,
                "properties": {
                    "tournament": union(
                        "The tournament without its `status` or its games'.",
                        {g.info.name: g.name("TournamentExport") for g in self.competitive},
                        "game",
                    )
                },
            },
        )

    def enums(self, codes: Mapping[str, tuple[int, str]]) -> None:
        self.put(
            "GameName",
            {
                "type": "string",
                "enum": [game.info.name for game in self.games],
                "description": "The games this server hosts.",
            },
        )
        self.put(
            "Status",
            {
                "type": "string",
                "enum": [status.value for status in GameStatus],
                "description": "`awaiting_random`: a draw is pending (nobody may act until a "
                "worker makes it); `active`: some seat may act; `over`.",
            },
        )
        self.put(
            "BotStrength",
            {"type": "string", "enum": list(game_schemas.BOT_STRENGTHS)},
        )
        lines = [f"- `{code}` ({status}): {why}" for code, (status, why) in codes.items()]
        self.put(
            "ErrorCode",
            {
                "type": "string",
                "enum": list(codes),
                "description": "Every code an error may carry:\n\n" + "\n".join(lines),
            },
        )
        self.put(
            "GameAction",
            {
                "description": "An action of the game the `game_id` names (one of the games' "
                "action unions, each discriminated on `type`); the server reads it by that "
                "game's schema only. Unknown fields are refused (`unexpected_field`).",
                "anyOf": [ref(game.name("Action")) for game in self.games],
            },
        )

    def all_schemas(self, codes: Mapping[str, tuple[int, str]]) -> dict[str, JSON_SCHEMA]:
        self.enums(codes)
        self.views()
        self.requests()
        self.by_game("Table", self.games)
        self.by_game("TableOpened", self.games)
        self.by_game("Tournament", self.competitive)
        self.by_game("TournamentCreated", self.competitive)
        self.events()
        self.tournament_export()
        taken = set(self.schemas)
        for name, schema in {**self.shared, **self.body}.items():
            if name not in taken:
                self.put(name, schema)
        for game in self.games:
            for name, schema in game.schemas.items():
                self.put(name, schema)
        return self.schemas


def error_codes(games: Iterable[GameSchemas]) -> dict[str, tuple[int, str]]:
    """Every code: ``errors.yaml``'s, then each game's refusals (422)."""
    codes: dict[str, tuple[int, str]] = {
        code: (int(status), str(why))
        for code, (status, why) in _yaml("errors.yaml")["codes"].items()
    }
    by_game: dict[str, list[str]] = {}
    for game in games:
        for code, why in game.contract.errors.items():
            by_game.setdefault(code, []).append(f"{game.info.title}: {why}")
    for code in sorted(by_game):
        if code in codes:
            raise ValueError(f"the game code {code!r} is one of errors.yaml's too")
        codes[code] = (422, "; ".join(by_game[code]))
    return codes


def _responses(
    responses: dict[str, Any], games: list[GameSchemas], codes: Mapping[str, tuple[int, str]]
) -> dict[str, Any]:
    """Each error answer: its codes said in its description, its body an ``Error``."""
    out: dict[str, Any] = {}
    for name, response in responses.items():
        listed = list(response.pop("x-codes"))
        game_codes = response.pop("x-game-codes", False)
        for code in listed:
            if code not in codes:
                raise ValueError(f"response {name} lists the unknown code {code!r}")
        text = (
            response["description"].rstrip()
            + "\n\nCodes: "
            + ", ".join(f"`{code}`" for code in listed)
            + "."
        )
        if game_codes:
            for game in games:
                text += (
                    f"\n\n{game.info.title}'s refusals: "
                    + ", ".join(f"`{code}` ({why})" for code, why in game.contract.errors.items())
                    + "."
                )
        response["description"] = text + "\n"
        response["content"] = {"application/json": {"schema": ref("Error")}}
        out[name] = response
    return out


def _examples(paths: dict[str, Any], games: list[GameSchemas]) -> None:
    """Request examples, one per game (and per action): the games' own, never written here."""
    names = ["Ada", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]
    create = paths["/v1/games"]["post"]["requestBody"]["content"]["application/json"]
    create["examples"] = {
        camel(game.info.name): {
            "summary": f"A {game.info.title} game of {game.info.min_seats}",
            "value": {
                "game": game.info.name,
                "players": [{"name": name} for name in names[: game.info.min_seats]],
            },
        }
        for game in games
    }
    table = paths["/v1/tables"]["post"]["requestBody"]["content"]["application/json"]
    table["examples"] = {
        camel(game.info.name): {
            "summary": f"Ada waits for strangers at {game.info.title}",
            "value": {
                "game": game.info.name,
                "seats": [{"name": "Ada"}] + [{"open": True}] * (game.info.min_seats - 1),
            },
        }
        for game in games
    }
    post = paths["/v1/games/{game_id}/actions"]["post"]["requestBody"]["content"]
    post["application/json"]["examples"] = {
        camel(f"{game.info.name} {kind}"): {
            "summary": f"{game.info.title}: {kind}",
            "value": {
                "action": schema["example"],
                "expected_version": 7,
                "command_id": f"{kind}-7",
            },
        }
        for game in games
        for kind, schema in game.contract.actions.items()
        if "example" in schema
    }
    post["application/json"]["examples"]["Resign"] = {
        "summary": "Any game: the seat resigns",
        "value": {"action": {"type": RESIGN}, "expected_version": 7, "command_id": "resign-7"},
    }


def build(games: Mapping[str, Game[Any]]) -> dict[str, Any]:
    """The whole document for ``games`` (the hosted ones: ``domain.games.GAMES``)."""
    frame = _yaml("document.yaml")
    builder = Builder(games)
    codes = error_codes(builder.games)
    paths: dict[str, Any] = {}
    responses: dict[str, Any] = dict(frame["components"].pop("responses"))
    for resource in RESOURCES:
        part = _yaml(f"{resource}.yaml")
        for path in part["paths"]:
            if path in paths:
                raise ValueError(f"{resource}.yaml: {path} is documented twice")
        paths.update(part["paths"])
        for name, response in part.get("components", {}).get("responses", {}).items():
            if name in responses:
                raise ValueError(f"{resource}.yaml: the response {name} exists already")
            responses[name] = response
        for name, schema in part.get("components", {}).get("schemas", {}).items():
            if name in builder.shared:
                raise ValueError(f"{resource}.yaml: the schema {name} exists already")
            builder.shared[name] = schema
    for (path, method), schema in QUERIES.items():
        operation = paths[path][method]
        parameters = query_parameters(schema) + operation.pop("parameters", [])
        # said where the YAML says parameters: before the body and the answers
        later = {
            key: operation.pop(key) for key in ("requestBody", "responses") if key in operation
        }
        paths[path][method] = {**operation, "parameters": parameters, **later}
    _examples(paths, builder.games)
    info = frame["info"]
    info["description"] = (
        info["description"].rstrip()
        + "\n\n## Games\n"
        + "\n\n".join(game.description() for game in builder.games)
        + "\n"
    )
    components = frame["components"]
    return {
        "openapi": frame["openapi"],
        "jsonSchemaDialect": frame["jsonSchemaDialect"],
        "info": info,
        "servers": frame["servers"],
        "tags": frame["tags"],
        "security": frame["security"],
        "paths": paths,
        "components": {
            "securitySchemes": components["securitySchemes"],
            "parameters": components["parameters"],
            "headers": components["headers"],
            "responses": _responses(responses, builder.games, codes),
            "schemas": builder.all_schemas(codes),
        },
    }


class _Dumper(yaml.SafeDumper):
    """Block style for text of several lines; keys in the order built."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_Dumper.add_representer(str, _text)


def dump(document: Mapping[str, Any]) -> str:
    header = (
        "# Written by `make spec` (python -m service.api.spec) from service/api/spec/*.yaml,\n"
        "# service/api/schemas and each game's package: never edit it by hand.\n"
    )
    body = yaml.dump(dict(document), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
    return header + body
