"""The ``/v1/tables`` routes: open a table, join it, cancel it, list and read tables.

Checks run in the API's order: 401 for an ``Authorization`` header that names nobody, 404 for
an unknown table, 400 for the body, then the table's own refusals (409, 429).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, request

from service.api.http import (
    RECORD_ID,
    bad_request,
    current_floe,
    current_viewer,
    int_arg,
    json_body,
    only_query,
    render,
)
from service.api.schemas import tables as schemas
from service.games import tokens
from service.tables.seating import OpenTable, SeatRequest, host_token, table_not_found
from service.tables.store import TableRecord, TableSeat

tables_v1 = Blueprint("tables_v1", __name__, url_prefix="/v1/tables")


@tables_v1.post("")
def open_table() -> Response:
    viewer = current_viewer()
    only_query()
    data = schemas.load(schemas.OPEN_TABLE, json_body())
    seats = tuple(
        SeatRequest(s.get("name"), s.get("bot"), s["open"], s["public_key"]) for s in data["seats"]
    )
    command = OpenTable(
        data["game"], seats, data["options"], creator=request.remote_addr, clock=data["clock"]
    )
    opened = current_floe().tables.open(command, viewer)
    body = {
        **table_json(opened.table),
        "host_token": opened.host_token,
        "tokens": [{"seat": seat, "token": token} for seat, token in opened.tokens],
    }
    response = render(schemas.TABLE_OPENED, body, 201)
    response.headers["Location"] = f"/v1/tables/{opened.table.id}"
    return response


@tables_v1.get("")
def list_tables() -> Response:
    only_query("status", "offset", "limit")
    status = request.args.get("status", "open")
    if status not in ("open", "started"):
        raise bad_request("invalid_query", "status must be 'open' or 'started'")
    offset = int_arg("offset", 0)
    limit = int_arg("limit", 50, low=1, high=500)
    records, total = current_floe().tables.listing(
        "open" if status == "open" else "started", offset=offset, limit=limit
    )
    body = {
        "tables": [table_json(r) for r in records],
        "total": total,
        "offset": offset,
        "limit": limit,
    }
    return render(schemas.TABLE_LIST, body)


@tables_v1.get("/<table_id>")
def get_table(table_id: str) -> Response:
    current_viewer()
    record = current_floe().tables.get(_known(table_id))
    only_query()
    return render(schemas.TABLE, table_json(record))


@tables_v1.post("/<table_id>/join")
def join_table(table_id: str) -> Response:
    current_viewer()
    tables = current_floe().tables
    record = tables.get(_known(table_id))  # 404 before the body is read (400)
    only_query()
    data = schemas.load(schemas.JOIN_TABLE, json_body())
    joined = tables.join(table_id, data["name"], public_key=data["public_key"], read=record)
    body = {"seat": joined.seat, "token": joined.token, "table": table_json(joined.table)}
    return render(schemas.TABLE_JOINED, body, 201)


@tables_v1.delete("/<table_id>")
def cancel_table(table_id: str) -> Response:
    authorization = request.headers.get("Authorization")
    floe = current_floe()
    token = (authorization or "").partition(" ")[2].strip()
    organizer = tokens.is_organizer(token, floe.settings.organizer_token) if token else False
    if request.args:  # refused after what outranks a 400 (404, then 401), before any write
        floe.tables.get(_known(table_id))
        if not organizer:
            host_token(authorization)
        only_query()
    record = floe.tables.cancel(_known(table_id), authorization, organizer=organizer)
    return render(schemas.TABLE, table_json(record))


def _seat_json(seat: TableSeat) -> dict[str, Any]:
    shown: dict[str, Any] = {
        "seat": seat.seat,
        "name": seat.name,
        "bot": seat.bot,
        "open": seat.open and not seat.taken,
    }
    if seat.public_key is not None:
        shown["public_key"] = seat.public_key
    return shown


def _known(table_id: str) -> str:
    if not RECORD_ID.fullmatch(table_id):
        raise table_not_found(table_id)
    return table_id


def table_json(record: TableRecord) -> dict[str, Any]:
    """A table as every client may see it: who sits where (and the public key a seat signs
    with, only when it has one: keys are public), never a token."""
    started = record.status in ("started", "starting")
    return {
        "id": record.id,
        "game": record.game,
        "status": "started" if started else record.status,
        "seats": [_seat_json(s) for s in record.seats],
        "options": dict(record.options),
        "clock": None if record.clock is None else dict(record.clock),
        "created_at": record.created_at,
        "expires_at": record.expires_at,
        "game_id": record.game_id if started else None,
    }
