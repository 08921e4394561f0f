"""What every namespace shares: the operation mark, the body builder and the call through the client."""

from typing import TYPE_CHECKING, Any, Callable, Dict, Mapping, Optional, TypeVar

if TYPE_CHECKING:  # pragma: no cover
    from .client import GoDB

F = TypeVar("F", bound=Callable[..., Any])
Json = Dict[str, Any]


def operation(operation_id: str) -> Callable[[F], F]:
    """Marks a method as the client's call of one catalogue operation (the drift test reads the mark)."""

    def mark(method: F) -> F:
        method.__godb_operation__ = operation_id  # type: ignore[attr-defined]
        return method

    return mark


def _fields(base: Optional[Mapping[str, Any]] = None, **fields: Any) -> Json:
    """A body from an optional dict and keyword fields; keywords win, None values are left out."""
    body = dict(base or {})
    body.update((name, value) for name, value in fields.items() if value is not None)
    return body


class _Namespace:
    def __init__(self, client: "GoDB") -> None:
        self._client = client

    def _call(self, operation_id: str, params: Optional[Json] = None, query: Optional[Json] = None, body: Any = None):
        return self._client.request(operation_id, params=params, query=query, body=body)
