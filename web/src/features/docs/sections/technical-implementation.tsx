export default function TechnicalImplementation() {
  return (
    <>
      <h2>Storage</h2>
      <p>
        SQLite through better-sqlite3, in write-ahead-log mode with <code>synchronous = FULL</code>: a write is
        acknowledged only when it is durable, and every write acknowledged survives <code>kill -9</code> (a test kills
        the server and checks). Migrations run in order and are recorded in <code>PRAGMA user_version</code>. Files
        outside SQLite — uploaded files, index checkpoints, a restored node&apos;s files, the generated JWT secret — are
        written to a temporary name, fsynced, renamed, and their folder fsynced, so a committed row never names a file a
        power cut took; a text index checkpoint ends with a CRC-32 and a vector index file&apos;s length and CRC-32 are
        recorded beside it, so an index file whose bytes changed on disk is rebuilt from the store rather than read.
      </p>
      <h2>Indexes</h2>
      <ul>
        <li>
          <strong>Text</strong>: FTS5 tables per tenant — Porter-stemmed for BM25 ranking (title weighted twice the
          content), unstemmed for the vocabulary of fuzzy search and autocomplete — so ranking statistics and
          suggestions never cross tenants. Word, phrase and wildcard queries are ranked by GoDB’s own in-memory index of
          each tenant: the same BM25 scores as FTS5’s <code>bm25()</code>, computed term at a time with MaxScore
          pruning, so a query costs what its rarest words cost; a phrase is checked only in the chunks holding its
          rarest word. It is derived from the FTS5 tables, loaded in the background on a tenant’s first query (FTS5
          answers meanwhile, with the same scores) and kept in step with every committed write.
        </li>
        <li>
          <strong>Ranking statistics</strong>: BM25’s statistics — how many chunks there are, their average length, how
          many hold each word — count the tenant’s public documents only. Private and shared documents are scored like
          any other, but never counted, so a score, a rank or a hit count you see never moves because someone wrote a
          document you cannot read; it moves, for everyone alike, when a document is published or unpublished. The
          stemmed text is split into a public and a private table for this, so FTS5 keeps these statistics at no extra
          cost per write. Fuzzy, wildcard and autocomplete candidates are ordered by the same public counts. A tenant
          without public text is scored with neutral statistics (every word equally rare, no length normalisation).
          Statistics computed over each reader’s own readable set were rejected: listing it costs about 50 ms per query
          for 100,000 documents, against under a millisecond for the whole search.
        </li>
        <li>
          <strong>Vectors</strong>: an HNSW index per tenant and model (usearch; M 16, efConstruction 200, efSearch 100;
          f16). Float32 vectors stay in the store, and copies of them in memory (<code>VECTOR_CACHE_MB</code>):
          candidates are rescored exactly without reading the store, and an index whose recorded generation differs from
          the store’s (after a crash) is rebuilt in the background, slice by slice, while every other request is served.
        </li>
        <li>
          <strong>Geo</strong>: an R*Tree of document locations; distances are great-circle (haversine) kilometres.
        </li>
      </ul>
      <h2>Embeddings</h2>
      <p>
        Universal Sentence Encoder Lite runs in worker threads (one per core by default), fed by a bounded queue: a full
        queue answers <code>503</code>. Each worker translates the model’s TensorFlow.js graph into ONNX in memory and
        runs it on onnxruntime’s native CPU kernels, about four times faster per core than TensorFlow.js’s WebAssembly
        backend, which remains available (<code>USE_LITE_RUNTIME=wasm</code>) and gives the same vectors. GoDB reads the
        model’s SentencePiece vocabulary with its own unigram tokenizer. GloVe vectors are converted once into a compact
        float32 file and served by a worker thread of their own. Texts longer than <code>max_tokens</code> words are
        windowed with <code>overlap</code> and mean-pooled. An LRU cache answers repeated texts.
      </p>
      <h2>Access control</h2>
      <p>
        The rule is enforced inside the engine, in the SQL that loads every search candidate: public documents are
        visible to the whole tenant; private ones to their owners and ACL entries; shared ones also to their access list
        (users or groups). Expired entries stop counting. Another tenant’s document is simply not found — the API
        answers <code>404</code>, never <code>403</code>, so existence is not revealed.
      </p>
      <h2>Errors</h2>
      <p>
        One catalogue maps every error code to its HTTP status, gRPC status and message template. Validation errors name
        the field as a path (<code>body.acl[0].role</code>); unexpected failures answer a request id that is also in the
        log.
      </p>
      <pre>
        <code>{`{ "error": { "code": "VALIDATION_FAILED",
             "message": "body.email must be an e-mail address such as ada@example.com: a name, one @, and a domain with a dot",
             "status": 400, "field": "body.email", "request_id": "4b0c…" } }`}</code>
      </pre>
      <h2>Protection</h2>
      <ul>
        <li>
          Per-client token bucket: 100 requests per second with a burst of 50 (<code>429</code> with{' '}
          <code>Retry-After</code>).
        </li>
        <li>
          At most 100 operations in flight (<code>503</code>), a 10 s answer deadline (<code>504</code>) except for long
          work.
        </li>
        <li>
          Request bodies above the limit answer <code>413</code>; unknown fields are refused rather than dropped.
        </li>
      </ul>
    </>
  );
}
