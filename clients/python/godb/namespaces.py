"""One class per category of the catalogue; one method per operation, marked with its operation id.

Methods take the path parameters positionally and the body's fields as keyword arguments (a dict may be passed
first instead, or as well); ``None`` means "not sent", so the server's default applies. Field names are the
API's (``primary_table``, ``filters``, ``text_content``), so the REST reference documents them all. Documents
are in documents.py.
"""

import time
from typing import Any, Iterator, List, Optional

from ._namespace import Json, _fields, _Namespace, operation
from .documents import DocumentsAPI, ImportProgress, ImportResult
from .errors import TIMEOUT, GoDBError
from .types import (
    ApiKeyList,
    ClusterView,
    AutocompleteResponse,
    Collection,
    CollectionInfo,
    CreatedApiKey,
    CreatedUser,
    EmbeddingResponse,
    FacetedSearchResponse,
    GraphResponse,
    MailAccepted,
    ModelList,
    QuantizedEmbeddingResponse,
    QueryResponse,
    SearchResponse,
    SmartSearchResponse,
    SuccessMessage,
    TokenResponse,
)

__all__ = [
    "AuthAPI",
    "ClusterAPI",
    "CollectionsAPI",
    "DocumentsAPI",
    "EmbeddingsAPI",
    "GraphAPI",
    "ImportProgress",
    "ImportResult",
    "IndexesAPI",
    "JobsAPI",
    "MailAPI",
    "SearchAPI",
    "SnapshotsAPI",
]


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
        """Text and vector together; ``alpha`` weighs them, ``fusion`` picks dbsf_relative (the default), dbsf, weighted or rrf."""
        return self._call("search-hybrid", body=_fields(query=query, vector=vector, **options))

    @operation("search-query")
    def query(self, prefetch: List[Json], **options: Any) -> QueryResponse:
        """The query pipeline: ``prefetch`` stages fused (``fusion``) or rescored, then ``formula``, ``mmr``, ``group_by``."""
        return self._call("search-query", body=_fields(prefetch=prefetch, **options))

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
    """Snapshots of the whole node (super admin) or of one tenant (its admins), and restoring them."""

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

    @operation("upload-snapshot")
    def upload(self, path: str, chunk_bytes: int = 1024 * 1024) -> Json:
        """Streams a snapshot archive taken elsewhere (a file) to this node, which checks and stores it."""

        def chunks() -> Iterator[bytes]:
            with open(path, "rb") as archive:
                while True:
                    chunk = archive.read(chunk_bytes)
                    if not chunk:
                        return
                    yield chunk

        return self._client.request("upload-snapshot", ndjson=chunks, content_type="application/x-tar")

    @operation("restore-snapshot")
    def restore(self, snapshot_id: str) -> Json:
        """Restores a stored snapshot into this running node; answers the job to follow with ``jobs.wait``."""
        return self._call("restore-snapshot", body={"snapshot_id": snapshot_id})


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


class ClusterAPI(_Namespace):
    """The cluster as the answering node sees it: nodes, shard streams, lag (admin)."""

    @operation("get-cluster")
    def get(self) -> ClusterView:
        """Nodes, shard streams with their leaders and holders, this node's applied sequence and lag, moves."""
        return self._call("get-cluster")
