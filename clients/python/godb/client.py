"""The GoDB client: one instance per server, a namespace per category of operations."""

import email.utils
import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable, Dict, Iterable, Mapping, Optional, Union

from ._operations import OPERATIONS, Operation
from .errors import CONNECTION_FAILED, TIMEOUT, GoDBError
from .types import TokenResponse
from .namespaces import (
    AuthAPI,
    ClusterAPI,
    CollectionsAPI,
    DocumentsAPI,
    EmbeddingsAPI,
    GraphAPI,
    IndexesAPI,
    JobsAPI,
    MailAPI,
    SearchAPI,
    SnapshotsAPI,
)

__version__ = "0.1.0"

#: Statuses worth retrying: the server asked the client to slow down (429) or is briefly overloaded (503).
RETRY_STATUSES = (429, 503)

RetryHook = Callable[[int, float, GoDBError], None]


class GoDB:
    """A client of one GoDB server.

    Every operation of the API is a method of the namespace of its category: ``client.auth``,
    ``client.collections``, ``client.documents``, ``client.search``, ``client.embeddings``, ``client.indexes``,
    ``client.jobs``, ``client.snapshots``, ``client.graph`` and ``client.mail``. Answers are the server's JSON as
    dicts and lists; errors raise :class:`GoDBError`.

    Example::

        client = GoDB("http://localhost:8081", api_key="godb_...")
        client.documents.add(id="a1", title="HNSW in practice", text_content="...")
        hits = client.search.hybrid("nearest neighbour graphs", limit=5)

    :param url: base URL of the server.
    :param api_key: an API key (``godb_<id>_<secret>``), sent in the ``api-key`` header.
    :param token: a login token, sent as ``Authorization: Bearer``; :meth:`login` sets one.
    :param timeout: seconds to wait for the server on each socket operation (connect, send, each read).
    :param max_retries: retries of a request answered 429 or 503 (0 turns them off).
    :param backoff: first wait in seconds when the answer has no ``Retry-After``; doubles each retry.
    :param max_backoff: longest wait between two attempts; a ``Retry-After`` beyond it is not waited for, the
        error is raised at once.
    :param on_retry: called as ``on_retry(attempt, delay_seconds, error)`` before each wait.
    :param sleep: how to wait (``time.sleep``); tests and event loops can pass their own.
    """

    def __init__(
        self,
        url: str = "http://localhost:8081",
        *,
        api_key: Optional[str] = None,
        token: Optional[str] = None,
        timeout: float = 30.0,
        max_retries: int = 3,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
        headers: Optional[Mapping[str, str]] = None,
        on_retry: Optional[RetryHook] = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if max_retries < 0:
            raise ValueError("max_retries must be 0 or more")
        self.url = url.rstrip("/")
        self.api_key = api_key
        self.token = token
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.headers = dict(headers or {})
        self.on_retry = on_retry
        self._sleep = sleep
        self._opener = urllib.request.build_opener()
        self.auth = AuthAPI(self)
        self.collections = CollectionsAPI(self)
        self.documents = DocumentsAPI(self)
        self.search = SearchAPI(self)
        self.embeddings = EmbeddingsAPI(self)
        self.indexes = IndexesAPI(self)
        self.jobs = JobsAPI(self)
        self.snapshots = SnapshotsAPI(self)
        self.graph = GraphAPI(self)
        self.mail = MailAPI(self)
        self.cluster = ClusterAPI(self)

    def __repr__(self) -> str:
        return "GoDB(%r)" % self.url

    def login(self, email: str, password: str, tenant_id: Optional[str] = None) -> TokenResponse:
        """Logs in with e-mail and password; later requests carry the token. Returns the login answer.

        Programs that run unattended should rather use an API key (``client.auth.create_api_key``).
        """
        answer = self.auth.login(email, password, tenant_id=tenant_id)
        self.token = answer["token"]
        self.api_key = None
        return answer

    # -- transport ---------------------------------------------------------------------------------------------

    def request(
        self,
        operation_id: str,
        params: Optional[Mapping[str, Any]] = None,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        *,
        ndjson: Optional[Callable[[], Iterable[bytes]]] = None,
        content_type: str = "application/x-ndjson",
        timeout: Optional[float] = None,
        stream: bool = False,
        retry: bool = True,
    ) -> Any:
        """Sends one operation of the catalogue and returns its answer.

        JSON answers are decoded; other answers (file downloads) are ``bytes``. ``ndjson`` gives the body of a
        streamed operation as a function returning the chunks to send (called again on a retry), sent as
        ``content_type`` (NDJSON unless told otherwise, e.g. a snapshot archive's ``application/x-tar``); with
        ``stream=True`` the open response is returned for the caller to read and close. ``retry=False`` sends
        once, whatever the answer (a body that cannot be sent twice).
        """
        operation = OPERATIONS[operation_id]
        url = self.url + self._path(operation, params or {}) + self._query(operation, query or {})
        headers = {"accept": "application/json", "user-agent": "godb-python/%s" % __version__}
        headers.update(self._auth_headers())
        headers.update(self.headers)
        attempt = 0
        while True:
            data: Any = None
            if ndjson is not None:
                data = iter(ndjson())
                headers["content-type"] = content_type
            elif body is not None:
                data = json.dumps(body, ensure_ascii=False, allow_nan=False).encode("utf-8")
                headers["content-type"] = "application/json"
            req = urllib.request.Request(url, data=data, headers=headers, method=operation.method)
            try:
                response = self._opener.open(req, timeout=self.timeout if timeout is None else timeout)
            except urllib.error.HTTPError as http_error:
                error = _error_from_response(http_error.code, http_error.headers, _read_and_close(http_error))
                delay = self._retry_delay(error, attempt) if retry else None
                if delay is None:
                    raise error from None
                attempt += 1
                if self.on_retry is not None:
                    self.on_retry(attempt, delay, error)
                self._sleep(delay)
                continue
            except (socket.timeout, TimeoutError) as timed_out:
                raise GoDBError(TIMEOUT, "No answer from %s within %ss" % (url, self.timeout)) from timed_out
            except urllib.error.URLError as unreachable:
                if isinstance(unreachable.reason, (socket.timeout, TimeoutError)):
                    raise GoDBError(TIMEOUT, "No answer from %s within %ss" % (url, self.timeout)) from unreachable
                raise GoDBError(CONNECTION_FAILED, "Cannot reach %s: %s" % (url, unreachable.reason)) from unreachable
            if stream:
                return response
            with response:
                return _decode(response.headers.get("content-type", ""), response.read())

    def _auth_headers(self) -> Dict[str, str]:
        if self.api_key:
            return {"api-key": self.api_key}
        if self.token:
            return {"authorization": "Bearer %s" % self.token}
        return {}

    @staticmethod
    def _path(operation: Operation, params: Mapping[str, Any]) -> str:
        path = operation.path
        for name in operation.path_params:
            if params.get(name) in (None, ""):
                raise ValueError("%s needs %s" % (operation.id, name))
            path = path.replace("{%s}" % name, urllib.parse.quote(str(params[name]), safe=""))
        return path

    @staticmethod
    def _query(operation: Operation, query: Mapping[str, Any]) -> str:
        pairs = []
        for name, value in query.items():
            if value is None:
                continue
            if name not in operation.query_params:
                raise ValueError("%s has no query parameter %s" % (operation.id, name))
            pairs.append((name, ("true" if value else "false") if isinstance(value, bool) else str(value)))
        return "?" + urllib.parse.urlencode(pairs) if pairs else ""

    def _retry_delay(self, error: GoDBError, attempt: int) -> Optional[float]:
        """Seconds to wait before the next attempt, or None when the error is final."""
        if error.status not in RETRY_STATUSES or attempt >= self.max_retries:
            return None
        if error.retry_after is not None:
            return error.retry_after if error.retry_after <= self.max_backoff else None
        return min(self.max_backoff, self.backoff * (2**attempt))


def _decode(content_type: str, raw: bytes) -> Any:
    if "json" in content_type and "ndjson" not in content_type:
        return json.loads(raw.decode("utf-8")) if raw else None
    if "ndjson" in content_type:
        return [json.loads(line) for line in raw.decode("utf-8").splitlines() if line.strip()]
    return raw


def _read_and_close(http_error: urllib.error.HTTPError) -> bytes:
    try:
        return http_error.read()
    except Exception:  # an error answer without a body
        return b""
    finally:
        try:
            http_error.close()
        except Exception:
            pass


def _parse_retry_after(value: Optional[str]) -> Optional[float]:
    """Retry-After is either seconds or an HTTP date (RFC 9110 section 10.2.3)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _error_from_response(status: int, headers: Any, raw: bytes) -> GoDBError:
    retry_after = _parse_retry_after(headers.get("retry-after"))
    request_id = headers.get("x-request-id")
    try:
        payload: Union[Dict[str, Any], None] = json.loads(raw.decode("utf-8")) if raw else None
    except (ValueError, UnicodeDecodeError):
        payload = None
    error = payload.get("error") if isinstance(payload, dict) else None
    if not isinstance(error, dict):
        text = raw.decode("utf-8", "replace").strip()[:500]
        return GoDBError(
            "HTTP_%d" % status,
            text or "HTTP %d" % status,
            status=status,
            request_id=request_id,
            retry_after=retry_after,
        )
    return GoDBError(
        str(error.get("code", "HTTP_%d" % status)),
        str(error.get("message", "")),
        status=int(error.get("status", status)),
        field=error.get("field"),
        request_id=error.get("request_id") or request_id,
        details=error.get("details"),
        retry_after=retry_after,
    )
