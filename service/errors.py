"""The API's error family: every refusal is JSON ``{"error": {"code", "message"}}``.

Domain errors keep their codes; their kind picks the status. Codes are stable: clients may
branch on them, and docs/errors.md lists them.
"""

from __future__ import annotations

from domain.engine.errors import GameError

_STATUS_BY_KIND = {"malformed": 400, "invalid_setup": 400, "not_allowed": 403, "illegal": 422}


class ApiError(Exception):
    """A refusal with an HTTP status and a stable code."""

    def __init__(
        self, status: int, code: str, message: str, *, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or {}

    @classmethod
    def from_game_error(cls, error: GameError) -> ApiError:
        return cls(_STATUS_BY_KIND[error.kind], error.code, error.message)

    def body(self) -> dict[str, dict[str, str]]:
        return {"error": {"code": self.code, "message": self.message}}


def bad_request(code: str, message: str) -> ApiError:
    return ApiError(400, code, message)


def unauthorized(code: str, message: str) -> ApiError:
    return ApiError(401, code, message, headers={"WWW-Authenticate": "Bearer"})


def forbidden(code: str, message: str) -> ApiError:
    return ApiError(403, code, message)


def not_found(code: str, message: str) -> ApiError:
    return ApiError(404, code, message)


def conflict(current: int, expected: int) -> ApiError:
    return ApiError(409, "version_conflict", f"the game is at version {current}, not {expected}")
