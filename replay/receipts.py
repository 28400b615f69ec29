"""Receipts players kept, held against exports: a rewrite after the fact, proven.

A hash chain proves nothing against a host who holds the seed: it can play a finished game
again with other moves and hash the new chain. But the service signed a *receipt* for every
event it showed (``domain.engine.signing``): its Ed25519 signature over the game, the version
and a mark, HMAC-SHA256 of the event's hash keyed by the game's seed. A player who kept one
holds the service's word for what the log was at that version, and once the seed is revealed
anyone recomputes the mark from an export. So, for each receipt kept for a game among the
exports (``floe replay verify --receipts FILE --keys KEYS``):

- a receipt whose signature is none of the service's keys (``--keys``: the saved answer of
  ``GET /v1/keys``, or public keys) is reported as not the service's and counts for nothing:
  anyone can make one up, so it fails nothing;
- a game whose export reveals no seed (not over) cannot be held to its marks: said, not failed;
- otherwise the export must hold the receipt's version and the mark recomputed from that
  event's hash must be the receipt's. If not, the service signed, at that version, an event
  this export does not hold: the log was rewritten after it was shown, and the game fails,
  naming the receipt's version and the last version a receipt still confirms.

Receipts for games that are not among the exports, and lines of the file that are no receipt,
are reported too. A receipts file is JSON lines ``{"game_id", "version", "mark",
"signature"}`` (other fields are ignored): what a client keeps from each action's
``receipts`` and each streamed event's ``receipt``, with the game's id.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from domain.engine.signing import (
    SignatureCheck,
    is_mark,
    is_public_key,
    is_signature,
    receipt_mark,
    receipt_message,
)
from domain.engine.types import SEED_REVEALED
from replay.ed25519 import signature_is_valid
from replay.source import BadLine, parse_line
from replay.tournament import TournamentVerdict
from replay.tournament.logs import split_runs
from replay.verify import Verdict, seed_problem

#: A game id as a receipt may name one: printable ASCII, no spaces.
_GAME_ID = re.compile(r"[!-~]{1,128}")


class ReceiptsError(ValueError):
    """The receipts file or the keys cannot be used at all; the message says why."""


@dataclass(frozen=True, slots=True, order=True)
class Receipt:
    """One receipt a player kept: the service's word on ``game_id`` at ``version``."""

    game_id: str
    version: int
    mark: str
    signature: str


@dataclass(frozen=True, slots=True)
class Kept:
    """A receipts file, read: its receipts (each once) and the lines that hold none."""

    receipts: tuple[Receipt, ...]
    unreadable: tuple[str, ...] = ()

    def games(self) -> dict[str, list[Receipt]]:
        by_game: dict[str, list[Receipt]] = {}
        for receipt in self.receipts:
            by_game.setdefault(receipt.game_id, []).append(receipt)
        return by_game


def read_receipts(path: str) -> Kept:
    """The receipts in the file ``path`` (``ReceiptsError`` when it cannot be read)."""
    try:
        text = Path(path).read_bytes().decode("utf-8", errors="surrogateescape")
    except OSError as error:
        raise ReceiptsError(f"cannot read {path}: {error.strerror or error}") from None
    return parse_receipts(text.split("\n"))


def parse_receipts(lines: Iterable[str]) -> Kept:
    """Receipts from JSON lines; a line that is none is named, never fatal (blank: skipped)."""
    found: dict[Receipt, None] = {}
    unreadable: list[str] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            receipt = _receipt(parse_line(line))
        except BadLine as bad:
            unreadable.append(f"line {number} {bad}")
            continue
        if receipt is None:
            unreadable.append(
                f'line {number} is not a receipt {{"game_id", "version" (1 or more), "mark" '
                '(64 hex), "signature" (128 hex)}'
            )
        else:
            found.setdefault(receipt)
    return Kept(tuple(found), tuple(unreadable))


def _receipt(value: Any) -> Receipt | None:
    if not isinstance(value, dict):
        return None
    game_id, version = value.get("game_id"), value.get("version")
    mark, signature = value.get("mark"), value.get("signature")
    if (
        not isinstance(game_id, str)
        or _GAME_ID.fullmatch(game_id) is None
        or type(version) is not int
        or version < 1
        or not is_mark(mark)
        or not is_signature(signature)
    ):
        return None
    return Receipt(game_id, version, str(mark), str(signature))


def read_keys(values: Sequence[str]) -> tuple[str, ...]:
    """The service's public keys: each value a public key (64 hex digits) or a file holding
    the answer of ``GET /v1/keys`` (``floe keys show`` prints the same)."""
    keys: dict[str, None] = {}
    for value in values:
        if is_public_key(value) and not Path(value).exists():
            keys.setdefault(value)
            continue
        try:
            document = json.loads(Path(value).read_text(encoding="utf-8"))
        except OSError as error:
            raise ReceiptsError(
                f"--keys {value}: neither a public key (64 lowercase hex digits) nor a file "
                f"that can be read ({error.strerror or error})"
            ) from None
        except ValueError:
            raise ReceiptsError(f"--keys {value}: not JSON (save GET /v1/keys's answer)") from None
        listed = document.get("keys") if isinstance(document, dict) else None
        if (
            not isinstance(listed, list)
            or not listed
            or not all(isinstance(k, dict) and is_public_key(k.get("public_key")) for k in listed)
        ):
            raise ReceiptsError(
                f'--keys {value}: not the answer of GET /v1/keys ({{"keys": [{{"public_key": '
                '<64 hex>, "current": ...}, ...]})'
            )
        for key in listed:
            keys.setdefault(str(key["public_key"]))
    if not keys:
        raise ReceiptsError("--keys: no key given")
    return tuple(keys)


# ----- one game -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameReceipts:
    """What the receipts kept for one game say about its export.

    ``confirmed`` and ``contradicted`` are the versions of the service's receipts the export
    matches and does not; ``not_the_services`` those of receipts signed by none of the keys;
    ``checked`` is False when the export reveals no seed (then no mark can be recomputed);
    ``reason`` says why the export fails, at ``version``, when a receipt contradicts it.
    """

    game_id: str
    kept: int
    confirmed: tuple[int, ...] = ()
    contradicted: tuple[int, ...] = ()
    not_the_services: tuple[int, ...] = ()
    checked: bool = True
    version: int | None = None
    reason: str | None = None
    #: Why the export could not be held to the receipts at all (unreadable again, say).
    unchecked_why: str | None = None

    def lines(self) -> list[str]:
        """The findings in words, one line each (the failure itself is the verdict's)."""
        said = [f"receipts of game {self.game_id}: {self.kept} kept"]
        if self.unchecked_why is not None:
            said[0] += f", none checked: {self.unchecked_why}"
        elif not self.checked:
            valid = self.kept - len(self.not_the_services)
            said[0] += (
                f", none checked: this export reveals no seed (the game is not over), so "
                f"the marks of the {valid} signed by the service cannot be recomputed yet"
            )
        else:
            said[0] += f", {len(self.confirmed)} confirmed by this export"
            if self.contradicted:
                said[0] += f", {len(self.contradicted)} contradicted ({_versions(self)})"
        if self.not_the_services:
            count = len(self.not_the_services)
            said.append(
                f"receipts of game {self.game_id}: {count} signed by no key of the service "
                f"(version{'s' * (count != 1)} {_list(self.not_the_services)}): not the "
                "service's, so they prove nothing and were not counted"
            )
        return said

    def to_json(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "kept": self.kept,
            "checked": self.checked and self.unchecked_why is None,
            "confirmed": list(self.confirmed),
            "contradicted": list(self.contradicted),
            "not_the_services": list(self.not_the_services),
            "version": self.version,
            "reason": self.reason if self.reason is not None else self.unchecked_why,
        }


def _versions(found: GameReceipts) -> str:
    return f"version{'s' * (len(found.contradicted) != 1)} {_list(found.contradicted)}"


def _list(versions: Sequence[int]) -> str:
    shown = ", ".join(map(str, versions[:10]))
    return shown + (f" and {len(versions) - 10} more" if len(versions) > 10 else "")


def check_game(
    game_id: str,
    events: Sequence[Any],
    receipts: Sequence[Receipt],
    keys: Sequence[str],
    check: SignatureCheck = signature_is_valid,
) -> GameReceipts:
    """Hold one game's export (its events, parsed) to the receipts kept for it."""
    signed, foreign = [], []
    for receipt in sorted(receipts):
        message = receipt_message(game_id, receipt.version, receipt.mark)
        if any(check(key, message, receipt.signature) for key in keys):
            signed.append(receipt)
        else:
            foreign.append(receipt.version)
    found = GameReceipts(game_id, len(receipts), not_the_services=tuple(foreign))
    seed = revealed_seed(events)
    if seed is None:
        return replace(found, checked=False)
    hashes = {
        e["version"]: e["hash"]
        for e in events
        if isinstance(e, dict) and type(e.get("version")) is int and isinstance(e.get("hash"), str)
    }
    confirmed, contradicted = [], []
    for receipt in signed:
        held = hashes.get(receipt.version)
        if held is not None and receipt_mark(seed, held) == receipt.mark:
            confirmed.append(receipt.version)
        else:
            contradicted.append(receipt.version)
    found = replace(found, confirmed=tuple(confirmed), contradicted=tuple(contradicted))
    if not contradicted:
        return found
    first = contradicted[0]
    last = max(hashes, default=0)
    return replace(found, version=first, reason=_rewritten(first, confirmed, last))


def _rewritten(version: int, confirmed: Sequence[int], last: int) -> str:
    """Why a valid receipt at ``version`` the export contradicts proves a rewrite."""
    before = [v for v in confirmed if v < version]
    if version > last:
        what = f"is for an event this export does not hold (it ends at version {last})"
    else:
        what = "contradicts this export"
    if before and before[-1] == version - 1:
        when = f"after version {version - 1}"
    elif before:
        when = f"after version {before[-1]} (the last a receipt confirms), by version {version}"
    else:
        when = f"at version {version} or before"
    receipt = f"the service's receipt for version {version} (kept by a player)"
    return f"{receipt} {what}: the log was rewritten {when}"


def revealed_seed(events: Sequence[Any]) -> bytes | None:
    """The seed the export reveals at its end, if it opens the first event's commitment."""
    last = events[-1] if events else None
    data = last.get("data") if isinstance(last, dict) else None
    if (
        not isinstance(last, dict)
        or last.get("type") != SEED_REVEALED
        or not isinstance(data, dict)
    ):
        return None
    try:
        seed = bytes.fromhex(str(data.get("seed")))
    except ValueError:
        return None
    return seed if seed_problem(list(events)) is None else None


# ----- every export -------------------------------------------------------------------------


@dataclass
class ReceiptCheck:
    """The kept receipts and the service's keys, held against each export named in turn
    (``read``: an export's lines again, by the name it was given)."""

    kept: Kept
    keys: tuple[str, ...]
    read: Callable[[str], list[str]]
    check: SignatureCheck = signature_is_valid
    #: The games some export held (the receipts of any other game are left over).
    seen: set[str] = field(default_factory=set)

    def judge(
        self, name: str, verdict: Verdict | TournamentVerdict
    ) -> tuple[Verdict | TournamentVerdict, list[GameReceipts]]:
        """The verdict, failed where a receipt proves the export rewritten, and what the
        receipts of each game in it say."""
        by_game = self.kept.games()
        if isinstance(verdict, Verdict):
            game_id = verdict.game_id
            if game_id is None or game_id not in by_game:
                return verdict, []
            self.seen.add(game_id)
            found = self._game(name, game_id, by_game[game_id], lambda lines: lines)
            if found.reason is None or verdict.status == "failed":
                return verdict, [found]
            failed = replace(verdict, status="failed", version=found.version, reason=found.reason)
            return failed, [found]
        return self._tournament(name, verdict, by_game)

    def _game(
        self,
        name: str,
        game_id: str,
        receipts: list[Receipt],
        pick: Callable[[list[str]], Sequence[str]],
    ) -> GameReceipts:
        try:
            lines = pick(self.read(name))
        except Exception as error:  # the export vanished, the store is away: say so
            why = f"cannot read the export again ({error})"
            return GameReceipts(game_id, len(receipts), unchecked_why=why)
        return check_game(game_id, _events(lines), receipts, self.keys, self.check)

    def _tournament(
        self, name: str, verdict: TournamentVerdict, by_game: dict[str, list[Receipt]]
    ) -> tuple[TournamentVerdict, list[GameReceipts]]:
        wanted = [g for g in verdict.games if g.game_id in by_game]
        if not wanted:
            return verdict, []
        runs: dict[str, Sequence[str]] = {}

        def run_of(game_id: str) -> Callable[[list[str]], Sequence[str]]:
            def pick(lines: list[str]) -> Sequence[str]:
                if not runs:
                    for run in split_runs(lines[1:]):
                        if run.game_id is not None:
                            runs.setdefault(run.game_id, run.lines)
                return runs.get(game_id, [])

            return pick

        findings, games, problems = [], list(verdict.games), list(verdict.problems)
        for index, game in enumerate(games):
            if game.game_id is None or game.game_id not in by_game:
                continue
            self.seen.add(game.game_id)
            found = self._game(name, game.game_id, by_game[game.game_id], run_of(game.game_id))
            findings.append(found)
            if found.reason is not None:
                problem = f"{game.name}: {found.reason}"
                games[index] = replace(game, problems=(*game.problems, problem))
                problems.append(problem)
        if len(problems) == len(verdict.problems):
            return verdict, findings
        turned = replace(verdict, status="failed", games=tuple(games), problems=tuple(problems))
        return turned, findings

    def left_over(self) -> dict[str, tuple[int, ...]]:
        """The versions kept for each game no export held."""
        return {
            game_id: tuple(sorted({r.version for r in receipts}))
            for game_id, receipts in self.kept.games().items()
            if game_id not in self.seen
        }

    def closing_lines(self, file: str) -> list[str]:
        """What is left to say once every export was judged: receipts of other games, lines
        of the file that are no receipt."""
        said = [
            f"receipts of game {game_id} (version{'s' * (len(versions) != 1)} "
            f"{_list(versions)}): no export named holds this game"
            for game_id, versions in self.left_over().items()
        ]
        said += [f"{file} {line}" for line in self.kept.unreadable]
        return said

    def closing_json(self, file: str) -> dict[str, Any]:
        return {
            "receipts": {
                "file": file,
                "read": len(self.kept.receipts),
                "unreadable": list(self.kept.unreadable),
                "other_games": [
                    {"game_id": game_id, "versions": list(versions)}
                    for game_id, versions in self.left_over().items()
                ],
            }
        }


def _events(lines: Sequence[str]) -> list[Any]:
    """An export's events, up to the first line that is not usable JSON."""
    events = []
    for line in lines:
        if not line.strip():
            continue
        try:
            events.append(parse_line(line))
        except BadLine:
            break
    return events
