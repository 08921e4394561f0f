"""Documents: add (one, a batch or an NDJSON stream), read, change, count, scroll and delete."""

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, List, Mapping, Optional

from ._namespace import Json, _fields, _Namespace, operation
from .types import (
    DeleteDocumentsResponse,
    DocumentStats,
    ScrollDocumentsResponse,
    StoredDocument,
    SuccessMessage,
)


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
