"""The one exception of the GoDB client, carrying the server's error catalogue code."""

from typing import Any, Dict, Optional


class GoDBError(Exception):
    """An error answered by GoDB (or met on the way to it).

    ``code`` is the stable SCREAMING_SNAKE code of the server's error catalogue (``VALIDATION_FAILED``,
    ``NOT_FOUND``, ``RATE_LIMITED`` ...), ``status`` the HTTP status, ``field`` the offending field as a dotted
    path (``body.email``) when the server names one, and ``request_id`` the id to quote when reporting a problem
    (it is in the server log). Failures before an answer arrives have no status: ``code`` is then
    ``CONNECTION_FAILED`` or ``TIMEOUT``.

    Example::

        try:
            client.documents.get("missing")
        except GoDBError as error:
            if error.code == "NOT_FOUND":
                ...
    """

    def __init__(
        self,
        code: str,
        message: str,
        status: Optional[int] = None,
        field: Optional[str] = None,
        request_id: Optional[str] = None,
        details: Optional[Dict[str, Any]] = None,
        retry_after: Optional[float] = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.field = field
        self.request_id = request_id
        self.details = details
        self.retry_after = retry_after

    def __str__(self) -> str:
        where = " (field %s)" % self.field if self.field else ""
        status = "%s " % self.status if self.status is not None else ""
        request = " [request %s]" % self.request_id if self.request_id else ""
        return "%s%s: %s%s%s" % (status, self.code, self.message, where, request)

    def __repr__(self) -> str:
        return "GoDBError(code=%r, status=%r, field=%r, request_id=%r, message=%r)" % (
            self.code,
            self.status,
            self.field,
            self.request_id,
            self.message,
        )


#: Codes of failures before any answer: the server could not be reached, or did not answer within the timeout.
CONNECTION_FAILED = "CONNECTION_FAILED"
TIMEOUT = "TIMEOUT"
