"""One class per category of the catalogue; one method per operation, marked with its operation id.

Methods take the path parameters positionally and the body's fields as keyword arguments (a dict may be passed
first instead, or as well); ``None`` means "not sent", so the server's default applies. Field names are the
API's (``primary_table``, ``filters``, ``text_content``), so the REST reference documents them all.
"""

import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, TypeVar

from .errors import TIMEOUT, GoDBError
from .types import (
    ApiKeyList,
    AutocompleteResponse,
    Collection,
    CollectionInfo,
    CreatedApiKey,
    CreatedUser,
    DeleteDocumentsResponse,
    DocumentStats,
    EmbeddingResponse,
    FacetedSearchResponse,
    GraphResponse,
    MailAccepted,
    ModelList,
    QuantizedEmbeddingResponse,
    ScrollDocumentsResponse,
    SearchResponse,
    SmartSearchResponse,
    StoredDocument,
    SuccessMessage,
    TokenResponse,
)

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


class AuthAPI(_Namespace):
    """Accounts, tenants, roles, groups, permissions and API keys (``/auth``)."""

    @operation("register")
    def register(self, email: str, password: str, tenant_id: Optional[str] = None) -> Json:
        """Creates a tenant (``tenant_id``, a UUID) and its first user, who becomes the tenant's admin."""
        return self._call("register", body=_fields(email=email, password=password, tenant_id=tenant_id))

    @operation("login")
    def login(self, email: str, password: str, tenant_id: Optional[str] = None) -> TokenResponse:
        """Exchanges e-mail and password for a token (see also :meth:`GoDB.login`, which keeps it)."""
        return self._call("login", body=_fields(email=email, password=password, tenant_id=tenant_id))

    @operation("assign-role")
    def assign_role(self, user_id: str, role_id: str) -> SuccessMessage:
        return self._call("assign-role", body=_fields(user_id=user_id, role_id=role_id))

    @operation("create-group")
    def create_group(self, name: str, description: str = "", tenant_id: Optional[str] = None) -> Json:
        return self._call("create-group", body=_fields(name=name, description=description, tenant_id=tenant_id))

    @operation("add-group-user")
    def add_group_user(self, group_id: str, user_id: str) -> SuccessMessage:
        return self._call("add-group-user", {"groupID": group_id}, body=_fields(user_id=user_id))

    @operation("remove-group-user")
    def remove_group_user(self, group_id: str, user_id: str) -> SuccessMessage:
        return self._call("remove-group-user", {"groupID": group_id, "userID": user_id})

    @operation("create-permission")
    def create_permission(self, resource: str, action: str, description: str = "") -> Json:
        body = _fields(resource=resource, action=action, description=description)
        return self._call("create-permission", body=body)

    @operation("assign-group-permission")
    def assign_group_permission(self, group_id: str, permission_id: str) -> SuccessMessage:
        return self._call("assign-group-permission", {"groupID": group_id}, body=_fields(permission_id=permission_id))

    @operation("create-admin-user")
    def create_admin_user(self, email: str, password: str, tenant_id: str) -> CreatedUser:
        """Super admin only: a user in any tenant."""
        return self._call("create-admin-user", body=_fields(email=email, password=password, tenant_id=tenant_id))

    @operation("create-user")
    def create_user(self, email: str, password: str, role: Optional[str] = None) -> CreatedUser:
        return self._call("create-user", body=_fields(email=email, password=password, role=role))

    @operation("get-user")
    def get_user(self, user_id: str) -> Json:
        return self._call("get-user", {"userID": user_id})

    @operation("list-users")
    def list_users(self, offset: Optional[int] = None, limit: Optional[int] = None) -> Json:
        return self._call("list-users", query={"offset": offset, "limit": limit})

    @operation("update-user")
    def update_user(self, user_id: str, changes: Optional[Json] = None, **fields: Any) -> Json:
        """Changes ``email``, ``role`` or ``groups`` of a user."""
        return self._call("update-user", {"userID": user_id}, body=_fields(changes, **fields))

    @operation("delete-user")
    def delete_user(self, user_id: str) -> SuccessMessage:
        return self._call("delete-user", {"userID": user_id})

    @operation("create-api-key")
    def create_api_key(self, name: str, role: Optional[str] = None, expires_at: Optional[str] = None) -> CreatedApiKey:
        """Creates an API key for programs; the answer's ``key`` is shown this once (only a hash is stored)."""
        return self._call("create-api-key", body=_fields(name=name, role=role, expires_at=expires_at))

    @operation("list-api-keys")
    def list_api_keys(self, offset: Optional[int] = None, limit: Optional[int] = None) -> ApiKeyList:
        return self._call("list-api-keys", query={"offset": offset, "limit": limit})

    @operation("revoke-api-key")
    def revoke_api_key(self, key_id: str) -> SuccessMessage:
        return self._call("revoke-api-key", {"keyID": key_id})


class CollectionsAPI(_Namespace):
    """Collections: the named vectors (dimensions, distance, storage) the documents of a table carry."""

    @operation("create-collection")
    def create(self, name: str, vectors: Optional[Json] = None, **fields: Any) -> Collection:
        """Example: ``create("products", {"image": {"dimensions": 4, "distance": "cosine"}})``."""
        return self._call("create-collection", body=_fields(name=name, vectors=vectors, **fields))

    @operation("list-collections")
    def list(self) -> Json:
        return self._call("list-collections")

    @operation("get-collection")
    def get(self, name: str) -> CollectionInfo:
        return self._call("get-collection", {"name": name})

    @operation("update-collection")
    def update(self, name: str, changes: Optional[Json] = None, **fields: Any) -> Collection:
        return self._call("update-collection", {"name": name}, body=_fields(changes, **fields))

    @operation("delete-collection")
    def delete(self, name: str) -> Json:
        return self._call("delete-collection", {"name": name})


@dataclass
class ImportProgress:
    """Where an NDJSON import stands: lines sent, and lines the server has written or refused."""

    sent: int = 0
    written: int = 0
    failed: int = 0
    #: True once every answer line has been read.
    done: bool = False


@dataclass
class ImportResult:
    """The outcome of a synchronous NDJSON import."""

    lines: int = 0
    written: int = 0
    failed: int = 0
    #: Ids of the documents written, in input order.
    document_ids: List[str] = field(default_factory=list)
    #: The answer line of each refused input line: ``{"line": 3, "success": False, "error": {...}}``.
    failures: List[Json] = field(default_factory=list)


ProgressHook = Callable[[ImportProgress], None]


class DocumentsAPI(_Namespace):
    """Documents: add (one, a batch or an NDJSON stream), read, change, count, scroll and delete."""

    @operation("add-document")
    def add(self, document: Optional[Json] = None, *, async_: bool = False, **fields: Any) -> Json:
        """Stores a document: ``add(id="a1", title="...", text_content="...", primary_table="products")``."""
        return self._call("add-document", query={"async": async_ or None}, body=_fields(document, **fields))

    @operation("batch-add-documents")
    def batch_add(self, documents: Iterable[Json], *, async_: bool = False) -> Json:
        return self._call("batch-add-documents", query={"async": async_ or None}, body=list(documents))

    @operation("import-documents")
    def import_ndjson(
        self,
        documents: Iterable[Mapping[str, Any]],
        *,
        batch_size: Optional[int] = None,
        async_: bool = False,
        on_progress: Optional[ProgressHook] = None,
        progress_every: int = 500,
        chunk_bytes: int = 64 * 1024,
    ) -> Any:
        """Streams any number of documents as NDJSON (one request, memory bounded on both sides).

        ``documents`` is any iterable of dicts (a generator reading a file is fine); each becomes one line.
        ``on_progress`` is called with an :class:`ImportProgress` as chunks are sent and every
        ``progress_every`` answer lines, and once at the end. Returns an :class:`ImportResult`; with
        ``async_=True`` the server's ``{"lines", "job_id"}`` instead (follow it with ``client.jobs.wait``).
        A list or tuple is sent again when the server answers 429/503; a one-shot iterable is sent once.
        """
        progress = ImportProgress()

        def report() -> None:
            if on_progress is not None:
                on_progress(ImportProgress(progress.sent, progress.written, progress.failed, progress.done))

        def chunks() -> Iterator[bytes]:
            progress.sent = 0
            buffer: List[bytes] = []
            size = 0
            for document in documents:
                line = json.dumps(document, ensure_ascii=False, allow_nan=False).encode("utf-8") + b"\n"
                buffer.append(line)
                size += len(line)
                progress.sent += 1
                if size >= chunk_bytes:
                    yield b"".join(buffer)
                    buffer, size = [], 0
                    report()
            if buffer:
                yield b"".join(buffer)
                report()

        replayable = isinstance(documents, (list, tuple))
        response = self._client.request(
            "import-documents",
            query={"batch_size": batch_size, "async": async_ or None},
            ndjson=chunks,
            stream=True,
            retry=replayable,
        )
        with response:
            if async_:
                return json.loads(response.read().decode("utf-8"))
            result = ImportResult()
            for raw in response:
                if not raw.strip():
                    continue
                answer = json.loads(raw.decode("utf-8"))
                result.lines += 1
                if answer.get("success"):
                    result.written += 1
                    result.document_ids.append(answer.get("document_id"))
                else:
                    result.failed += 1
                    result.failures.append(answer)
                progress.written, progress.failed = result.written, result.failed
                if result.lines % progress_every == 0:
                    report()
        progress.done = True
        report()
        return result

    @operation("get-document")
    def get(
        self,
        id: str,
        *,
        include_embeddings: Optional[bool] = None,
        include_chunks: Optional[bool] = None,
        include_metadata: Optional[bool] = None,
        include_acl: Optional[bool] = None,
        include_stats: Optional[bool] = None,
    ) -> Json:
        """Reads a document (``"<id>@v<n>"`` reads an earlier version)."""
        query = {
            "include_embeddings": include_embeddings,
            "include_chunks": include_chunks,
            "include_metadata": include_metadata,
            "include_acl": include_acl,
            "include_stats": include_stats,
        }
        return self._call("get-document", {"id": id}, query=query)

    @operation("update-document")
    def update(self, id: str, changes: Optional[Json] = None, **fields: Any) -> Json:
        """Partial update (PATCH): only the fields given change, e.g. ``update("a1", title="New")``."""
        return self._call("update-document", {"id": id}, body=_fields(changes, **fields))

    @operation("count-documents")
    def count(self, primary_table: Optional[str] = None, filter: Optional[Json] = None) -> Json:
        """Counts the documents of a table that match ``filter`` (GoDB's filter grammar)."""
        return self._call("count-documents", body=_fields(primary_table=primary_table, filter=filter))

    @operation("scroll-documents")
    def scroll(
        self,
        primary_table: Optional[str] = None,
        filter: Optional[Json] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        with_vectors: Optional[bool] = None,
    ) -> ScrollDocumentsResponse:
        """One page of documents in id order; pass the answer's ``next_cursor`` as ``cursor`` for the next."""
        body = _fields(primary_table=primary_table, filter=filter, limit=limit, cursor=cursor, with_vectors=with_vectors)
        return self._call("scroll-documents", body=body)

    def scroll_all(
        self,
        primary_table: Optional[str] = None,
        filter: Optional[Json] = None,
        limit: Optional[int] = None,
        with_vectors: Optional[bool] = None,
    ) -> Iterator[StoredDocument]:
        """Every matching document, page after page (a generator over :meth:`scroll`)."""
        cursor: Optional[str] = None
        while True:
            page = self.scroll(primary_table, filter, limit, cursor, with_vectors)
            for document in page["documents"]:
                yield document
            cursor = page.get("next_cursor")
            if not cursor:
                return

    @operation("delete-documents")
    def delete_by_filter(
        self, primary_table: Optional[str] = None, filter: Optional[Json] = None, permanent: Optional[bool] = None
    ) -> DeleteDocumentsResponse:
        body = _fields(primary_table=primary_table, filter=filter, permanent=permanent)
        return self._call("delete-documents", body=body)

    @operation("download-document-file")
    def download_file(self, id: str) -> bytes:
        """The file stored with a document, as bytes."""
        return self._call("download-document-file", {"id": id})

    @operation("update-engagement")
    def update_engagement(self, id: str, engagement: Optional[Json] = None, **fields: Any) -> Json:
        return self._call("update-engagement", {"id": id}, body=_fields(engagement, **fields))

    @operation("record-engagement")
    def record_engagement(self, id: str, engagement: Optional[Json] = None, **fields: Any) -> Json:
        return self._call("record-engagement", {"id": id}, body=_fields(engagement, **fields))

    @operation("set-visibility")
    def set_visibility(self, id: str, visibility: str) -> SuccessMessage:
        return self._call("set-visibility", {"id": id}, body=_fields(visibility=visibility))

    @operation("update-acl")
    def update_acl(self, id: str, operation: str, acl: List[Json]) -> SuccessMessage:
        return self._call("update-acl", {"id": id}, body=_fields(operation=operation, acl=acl))

    @operation("delete-document")
    def delete(self, id: str, *, recursive: Optional[bool] = None, permanent: Optional[bool] = None) -> SuccessMessage:
        return self._call("delete-document", {"id": id}, query={"recursive": recursive, "permanent": permanent})

    @operation("document-stats")
    def stats(self) -> DocumentStats:
        return self._call("document-stats")


class SearchAPI(_Namespace):
    """Search: text (BM25), vector, hybrid, geo, faceted, fuzzy, autocomplete, smart, multi-table, recommendations.

    Options are the request fields of the REST reference, e.g. ``limit``, ``primary_table`` and ``filters``.
    """

    @operation("simple-search")
    def simple(self, query: str, limit: Optional[int] = None) -> SearchResponse:
        return self._call("simple-search", query={"query": query, "limit": limit})

    @operation("search-autocomplete")
    def autocomplete(self, prefix: str, **options: Any) -> AutocompleteResponse:
        return self._call("search-autocomplete", body=_fields(prefix=prefix, **options))

    @operation("search-text")
    def text(self, query: str, **options: Any) -> SearchResponse:
        return self._call("search-text", body=_fields(query=query, **options))

    @operation("search-vector")
    def vector(self, query: Optional[str] = None, *, vector: Optional[List[float]] = None, **options: Any) -> SearchResponse:
        """By a text the server embeds (``query``) or by your own ``vector`` (with ``vector_name``)."""
        return self._call("search-vector", body=_fields(query=query, vector=vector, **options))

    @operation("search-hybrid")
    def hybrid(self, query: Optional[str] = None, *, vector: Optional[List[float]] = None, **options: Any) -> SearchResponse:
        """Text and vector together; ``alpha`` weighs them, ``fusion`` picks weighted or rrf."""
        return self._call("search-hybrid", body=_fields(query=query, vector=vector, **options))

    @operation("search-geo")
    def geo(self, lat: float, lon: float, radius: float, **options: Any) -> SearchResponse:
        return self._call("search-geo", body=_fields(lat=lat, lon=lon, radius=radius, **options))

    @operation("search-faceted")
    def faceted(self, query: Optional[str] = None, *, facets: Optional[List[str]] = None, **options: Any) -> FacetedSearchResponse:
        return self._call("search-faceted", body=_fields(query=query, facets=facets, **options))

    @operation("search-fuzzy")
    def fuzzy(self, query: str, **options: Any) -> SearchResponse:
        return self._call("search-fuzzy", body=_fields(query=query, **options))

    @operation("search-smart")
    def smart(self, query: Optional[str] = None, **options: Any) -> SmartSearchResponse:
        return self._call("search-smart", body=_fields(query=query, **options))

    @operation("search-multi-table")
    def multi_table(self, table_names: List[str], query: Optional[str] = None, **options: Any) -> SearchResponse:
        return self._call("search-multi-table", body=_fields(table_names=table_names, query=query, **options))

    @operation("search-recommendations")
    def recommendations(self, document_id: Optional[str] = None, **options: Any) -> SearchResponse:
        return self._call("search-recommendations", body=_fields(document_id=document_id, **options))


class EmbeddingsAPI(_Namespace):
    """Embedding models and vectors."""

    @operation("list-embedding-models")
    def list_models(self) -> ModelList:
        return self._call("list-embedding-models")

    @operation("create-embedding")
    def create(self, text: str, model_name: Optional[str] = None, **options: Any) -> EmbeddingResponse:
        return self._call("create-embedding", body=_fields(text=text, model_name=model_name, **options))

    @operation("create-quantized-embedding")
    def create_quantized(self, text: str, method: str, bit_width: int, **options: Any) -> QuantizedEmbeddingResponse:
        body = _fields(text=text, method=method, bit_width=bit_width, **options)
        return self._call("create-quantized-embedding", body=body)


class IndexesAPI(_Namespace):
    """Index maintenance (tenant admins)."""

    @operation("refresh-indexes")
    def refresh(self) -> Json:
        return self._call("refresh-indexes")

    @operation("recluster-indexes")
    def recluster(self) -> Json:
        return self._call("recluster-indexes")


class JobsAPI(_Namespace):
    """Background work: asynchronous adds, imports and snapshots."""

    @operation("get-job")
    def get(self, id: str) -> Json:
        return self._call("get-job", {"id": id})

    def wait(self, id: str, *, poll_interval: float = 0.5, timeout: float = 600.0) -> Json:
        """Polls a job until it is no longer queued or running; returns its last state."""
        deadline = time.monotonic() + timeout
        while True:
            job = self.get(id)
            if job.get("status") not in ("queued", "running"):
                return job
            if time.monotonic() >= deadline:
                raise GoDBError(TIMEOUT, "Job %s still %s after %ss" % (id, job.get("status"), timeout))
            time.sleep(poll_interval)


class SnapshotsAPI(_Namespace):
    """Snapshots of the whole node (super admin)."""

    @operation("create-snapshot")
    def create(self) -> Json:
        return self._call("create-snapshot")

    @operation("list-snapshots")
    def list(self) -> Json:
        return self._call("list-snapshots")

    @operation("download-snapshot")
    def download(self, id: str, path: Optional[str] = None) -> Any:
        """The snapshot archive: bytes, or written to ``path`` in chunks (then the path is returned)."""
        if path is None:
            return self._call("download-snapshot", {"id": id})
        response = self._client.request("download-snapshot", {"id": id}, stream=True)
        with response, open(path, "wb") as out:
            while True:
                chunk = response.read(1024 * 1024)
                if not chunk:
                    return path
                out.write(chunk)

    @operation("delete-snapshot")
    def delete(self, id: str) -> SuccessMessage:
        return self._call("delete-snapshot", {"id": id})


class GraphAPI(_Namespace):
    """Graph queries over document edges: paths, traversals, centralities, node embeddings."""

    @operation("search-graph")
    def search(self, start_node_id: Optional[str] = None, **options: Any) -> GraphResponse:
        return self._call("search-graph", body=_fields(start_node_id=start_node_id, **options))

    @operation("graph-query")
    def query(self, start_node_id: str, **options: Any) -> GraphResponse:
        return self._call("graph-query", body=_fields(start_node_id=start_node_id, **options))


class MailAPI(_Namespace):
    """The website's mail endpoints and signed release downloads (public)."""

    @operation("send-email")
    def send_email(self, request: Optional[Json] = None, **fields: Any) -> MailAccepted:
        return self._call("send-email", body=_fields(request, **fields))

    @operation("send-mail")
    def send(self, from_name: str, from_email: str, subject: str, message: str, **fields: Any) -> MailAccepted:
        body = _fields(from_name=from_name, from_email=from_email, subject=subject, message=message, **fields)
        return self._call("send-mail", body=body)

    @operation("download-release")
    def download_release(self, file: str, expires: Any, signature: str) -> bytes:
        return self._call("download-release", {"file": file}, query={"expires": expires, "signature": signature})
