/**
 * Schema migrations, applied in order inside one transaction each; `PRAGMA user_version` records the last one.
 * Never edit a released migration: add a new one.
 */
export const migrations: readonly { readonly version: number; readonly description: string; readonly sql: string }[] = [
  {
    version: 1,
    description: 'tenants, users, groups, permissions',
    sql: `
      CREATE TABLE tenants (
        id TEXT PRIMARY KEY,
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE users (
        id TEXT PRIMARY KEY,
        tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        email TEXT NOT NULL COLLATE NOCASE UNIQUE,
        password_hash TEXT NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('user', 'admin', 'superadmin')),
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX users_tenant ON users(tenant_id, created_at);
      CREATE TABLE groups (
        id TEXT PRIMARY KEY,
        tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        description TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        UNIQUE (tenant_id, name)
      ) STRICT;
      CREATE TABLE group_members (
        group_id TEXT NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        PRIMARY KEY (group_id, user_id)
      ) STRICT;
      CREATE INDEX group_members_user ON group_members(user_id);
      CREATE TABLE permissions (
        id TEXT PRIMARY KEY,
        resource TEXT NOT NULL,
        action TEXT NOT NULL,
        description TEXT NOT NULL,
        UNIQUE (resource, action)
      ) STRICT;
      CREATE TABLE group_permissions (
        group_id TEXT NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
        permission_id TEXT NOT NULL REFERENCES permissions(id) ON DELETE CASCADE,
        PRIMARY KEY (group_id, permission_id)
      ) STRICT;
    `,
  },
  {
    version: 2,
    description: 'documents, chunks, text, geo and access indexes, engagement events, jobs',
    sql: `
      CREATE TABLE documents (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        tenant_id TEXT NOT NULL,
        id TEXT NOT NULL,
        owner_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        superseded INTEGER NOT NULL DEFAULT 0,
        deleted_at INTEGER,
        visibility TEXT NOT NULL CHECK (visibility IN ('public', 'private', 'shared')),
        primary_table TEXT NOT NULL,
        parent_doc_id TEXT,
        title TEXT NOT NULL,
        content TEXT NOT NULL,
        lat REAL,
        lon REAL,
        model TEXT,
        cluster INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        indexed_at INTEGER,
        fields TEXT NOT NULL,
        UNIQUE (tenant_id, id)
      ) STRICT;
      CREATE INDEX documents_parent ON documents(tenant_id, parent_doc_id);
      CREATE INDEX documents_table ON documents(tenant_id, primary_table);
      CREATE TABLE chunks (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        doc_seq INTEGER NOT NULL REFERENCES documents(seq) ON DELETE CASCADE,
        tenant_id TEXT NOT NULL,
        chunk_index INTEGER NOT NULL,
        content TEXT NOT NULL,
        start_offset INTEGER NOT NULL,
        end_offset INTEGER NOT NULL,
        model TEXT,
        vector BLOB
      ) STRICT;
      CREATE INDEX chunks_doc ON chunks(doc_seq, chunk_index);
      CREATE INDEX chunks_tenant_model ON chunks(tenant_id, model);
      CREATE TABLE tenant_text_indexes (
        tenant_id TEXT PRIMARY KEY,
        key INTEGER NOT NULL UNIQUE
      ) STRICT;
      CREATE VIRTUAL TABLE geo_rtree USING rtree(doc_seq, min_lat, max_lat, min_lon, max_lon);
      CREATE TABLE document_access (
        doc_seq INTEGER NOT NULL REFERENCES documents(seq) ON DELETE CASCADE,
        principal TEXT NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('owner', 'edit', 'view', 'list')),
        expires_at INTEGER,
        PRIMARY KEY (doc_seq, principal, role)
      ) STRICT;
      CREATE INDEX document_access_principal ON document_access(principal);
      CREATE TABLE vector_generations (
        tenant_id TEXT NOT NULL,
        model TEXT NOT NULL,
        generation INTEGER NOT NULL,
        PRIMARY KEY (tenant_id, model)
      ) STRICT;
      CREATE TABLE engagement_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        tenant_id TEXT NOT NULL,
        doc_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        at INTEGER NOT NULL,
        payload TEXT NOT NULL
      ) STRICT;
      CREATE INDEX engagement_events_doc ON engagement_events(tenant_id, doc_id);
      CREATE INDEX engagement_events_user ON engagement_events(tenant_id, user_id);
      CREATE TABLE jobs (
        id TEXT PRIMARY KEY,
        tenant_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed')),
        processed INTEGER NOT NULL DEFAULT 0,
        total INTEGER NOT NULL,
        error TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 3,
    description: 'mail outbox',
    sql: `
      CREATE TABLE outbox (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        sender TEXT NOT NULL,
        client TEXT NOT NULL,
        to_address TEXT NOT NULL,
        reply_to TEXT,
        subject TEXT NOT NULL,
        body TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        next_attempt_at INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        sent_at INTEGER
      ) STRICT;
      CREATE INDEX outbox_due ON outbox(status, next_attempt_at);
      CREATE INDEX outbox_sender ON outbox(sender, created_at);
      CREATE INDEX outbox_client ON outbox(client, created_at);
    `,
  },
  {
    version: 4,
    description: 'documents epoch: bumped by every change to a document row (see search/public-rows.ts)',
    sql: `
      CREATE TABLE documents_epoch (n INTEGER NOT NULL) STRICT;
      INSERT INTO documents_epoch (n) VALUES (0);
      CREATE TRIGGER documents_epoch_on_update AFTER UPDATE ON documents
        BEGIN UPDATE documents_epoch SET n = n + 1; END;
      CREATE TRIGGER documents_epoch_on_delete AFTER DELETE ON documents
        BEGIN UPDATE documents_epoch SET n = n + 1; END;
    `,
  },
  {
    version: 5,
    description: 'earlier versions of a deleted document are deleted with it (issue #22)',
    // An archived version's id is <id>@v<version>; a later version of the same document (the current one, still
    // named <id>, or a later archived one) that was soft-deleted takes the earlier ones with it.
    sql: `
      UPDATE documents AS v SET deleted_at = (
        SELECT min(d.deleted_at) FROM documents d
        WHERE d.tenant_id = v.tenant_id AND d.deleted_at IS NOT NULL AND d.version > v.version
          AND (d.id = substr(v.id, 1, length(v.id) - length(v.version) - 2)
            OR d.id = substr(v.id, 1, length(v.id) - length(v.version) - 2) || '@v' || d.version))
      WHERE v.superseded = 1 AND v.deleted_at IS NULL AND EXISTS (
        SELECT 1 FROM documents d
        WHERE d.tenant_id = v.tenant_id AND d.deleted_at IS NOT NULL AND d.version > v.version
          AND (d.id = substr(v.id, 1, length(v.id) - length(v.version) - 2)
            OR d.id = substr(v.id, 1, length(v.id) - length(v.version) - 2) || '@v' || d.version));
    `,
  },
  {
    version: 6,
    description: 'collections and the vectors clients give with documents (issue #15)',
    // Every table a document named so far becomes an implicit collection with one vector per embedding model its
    // chunks used (named after the model), as documents create them from now on.
    sql: `
      CREATE TABLE collections (
        tenant_id TEXT NOT NULL,
        name TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        vectors TEXT NOT NULL DEFAULT '{}',
        default_vector TEXT,
        implicit INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (tenant_id, name)
      ) STRICT;
      CREATE TABLE document_vectors (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        doc_seq INTEGER NOT NULL REFERENCES documents(seq) ON DELETE CASCADE,
        tenant_id TEXT NOT NULL,
        collection TEXT NOT NULL,
        name TEXT NOT NULL,
        vector BLOB NOT NULL
      ) STRICT;
      CREATE INDEX document_vectors_space ON document_vectors(tenant_id, collection, name, seq);
      CREATE INDEX document_vectors_doc ON document_vectors(doc_seq);
      INSERT INTO collections (tenant_id, name, description, vectors, default_vector, implicit, created_at, updated_at)
      SELECT t.tenant_id, t.primary_table, '',
        COALESCE((
          SELECT json_group_object(m.model, json_object(
            'dimensions', m.dims, 'distance', 'cosine', 'storage', 'f16',
            'hnsw', json_object('m', 16, 'ef_construction', 200, 'ef_search', 100), 'model', m.model))
          FROM (SELECT c.model AS model, max(length(c.vector)) / 4 AS dims
                FROM chunks c JOIN documents d ON d.seq = c.doc_seq
                WHERE d.tenant_id = t.tenant_id AND d.primary_table = t.primary_table AND c.vector IS NOT NULL
                GROUP BY c.model) m), '{}'),
        (SELECT c.model FROM chunks c JOIN documents d ON d.seq = c.doc_seq
         WHERE d.tenant_id = t.tenant_id AND d.primary_table = t.primary_table AND c.vector IS NOT NULL
         ORDER BY c.seq LIMIT 1),
        1, t.created_at, t.updated_at
      FROM (SELECT tenant_id, primary_table, min(created_at) AS created_at, max(updated_at) AS updated_at
            FROM documents GROUP BY tenant_id, primary_table) t;
    `,
  },
  {
    version: 7,
    description: 'API keys, stored as SHA-256 hashes of their secrets (issue #19)',
    // A key goes with its user (ON DELETE CASCADE), so a deleted user's keys stop working and leave nothing behind.
    sql: `
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('user', 'admin', 'superadmin')),
        secret_hash BLOB NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER,
        last_used_at INTEGER
      ) STRICT;
      CREATE INDEX api_keys_tenant ON api_keys(tenant_id, created_at);
      CREATE INDEX api_keys_user ON api_keys(user_id, created_at);
    `,
  },
  {
    version: 8,
    description: 'stored files waiting to be deleted (their documents were purged, or their write failed)',
    // A row is written in the transaction that purges a document, and removed once the storage provider has
    // deleted the object: a store that is down when a document is purged is cleaned up later, not forgotten.
    sql: `
      CREATE TABLE file_deletions (key TEXT PRIMARY KEY) STRICT;
    `,
  },
  {
    version: 9,
    description: 'progress of NDJSON imports: lines read, written and failed, the first failed lines, start time',
    sql: `
      ALTER TABLE jobs ADD COLUMN lines_read INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE jobs ADD COLUMN written INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE jobs ADD COLUMN failed INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE jobs ADD COLUMN failures TEXT;
      ALTER TABLE jobs ADD COLUMN started_ms INTEGER;
      ALTER TABLE jobs ADD COLUMN updated_ms INTEGER;
    `,
  },
  {
    version: 10,
    description: 'the changed-rows log of the vector indexes, so a restart replays a checkpoint instead of rebuilding',
    // Keys (vector seqs, float64 little-endian) each write took out of a space, by generation; pruned when a
    // checkpoint of that generation is durable. Spaces that existed before have no log of their past removals: their
    // log starts at their current generation (a file of an older one is rebuilt, as before).
    sql: `
      CREATE TABLE vector_removals (
        tenant_id TEXT NOT NULL,
        space TEXT NOT NULL,
        generation INTEGER NOT NULL,
        keys BLOB NOT NULL,
        PRIMARY KEY (tenant_id, space, generation)
      ) STRICT;
      ALTER TABLE vector_generations ADD COLUMN logged_from INTEGER NOT NULL DEFAULT 0;
      UPDATE vector_generations SET logged_from = generation;
    `,
  },
  {
    version: 11,
    description: 'tenant restores under way, so that one cut short by a crash is finished when the server starts',
    // A tenant restore replaces the tenant's rows in short transactions (other tenants are served between them);
    // this row, written before the first and deleted with the last, names the unpacked snapshot it restores from,
    // kept until then. The tenant answers 503 TENANT_RESTORING while its row exists.
    sql: `
      CREATE TABLE tenant_restores (
        tenant_id TEXT PRIMARY KEY,
        snapshot_id TEXT NOT NULL,
        dir TEXT NOT NULL,
        trust_index_files INTEGER NOT NULL,
        started_at INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 12,
    description: 'cluster mode: the last sequence of each replicated log stream this node applied (issue #17)',
    // Written in the same transaction as the rows an operation changes, so a crash between the two can neither
    // apply an operation twice nor skip one. Empty on an embedded node.
    sql: `
      CREATE TABLE cluster_applied (
        stream TEXT PRIMARY KEY,
        seq INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 13,
    description: 'cluster mode: the node that runs each job (issue #17)',
    // Jobs are replicated so that any node answers their progress; the work runs on the node that took it, and when
    // that node restarts, or counts as gone, its unfinished jobs are marked failed. NULL on an embedded node.
    sql: `
      ALTER TABLE jobs ADD COLUMN node TEXT;
    `,
  },
  {
    version: 14,
    description: 'cluster mode: the newest fencing token applied for each singleton duty (issue #17)',
    // An operation of a lease holder (the mail relay's marks) carries its lease's token; applying refuses one older
    // than the newest recorded here, in log order, so a former holder cannot act after a new one took over.
    sql: `
      CREATE TABLE cluster_fences (
        duty TEXT PRIMARY KEY,
        token INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 15,
    description: 'cluster mode: the last sequence applied of each shard stream of the replicated log (issue #17)',
    // The log became 16 shard streams (godb-shard-00 ...): one row per shard, written in the transaction of each
    // operation as before. Sequences of the one stream of before (GODB_OPS) mean nothing on a shard, so they are kept
    // aside, not converted: a cluster node that finds one refuses to start and says what to do (docs/decisions/0032).
    sql: `
      ALTER TABLE cluster_applied RENAME TO cluster_applied_single_stream;
      CREATE TABLE cluster_applied (
        shard INTEGER PRIMARY KEY CHECK (shard >= 0),
        seq INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 16,
    description: "the in-memory BM25 indexes' checkpoint files (issue #16)",
    // One row per tenant whose BM25 index was saved under <data>/text/: the file's id (in its header too), the
    // largest chunk seq it holds, its size and when it was saved. A file is read back only when this row names it, so
    // a file of another store (a whole-node restore, a copied data folder) or of a tenant whose text was rebuilt
    // since (the row is deleted in that transaction) is never taken for this one's.
    sql: `
      CREATE TABLE text_checkpoints (
        tenant_id TEXT PRIMARY KEY,
        file_id TEXT NOT NULL,
        through INTEGER NOT NULL,
        bytes INTEGER NOT NULL,
        saved_at INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 17,
    description: 'declared field indexes of collections and their postings (issue #39)',
    // The declaration is a collection's setting (copied with it by a snapshot); the postings and the state of their
    // build are derived, kept per node and rebuilt from the documents when missing. One posting per value of a
    // document's field (each element of a list), and one with a NULL value saying that the field has a value at all
    // (for exists, and for negations), only for current live versions. `multi` is set once a document held two
    // values or more (a list): until then, ranges of one field in a `must` are read as one range.
    sql: `
      ALTER TABLE collections ADD COLUMN indexes TEXT NOT NULL DEFAULT '{}';
      CREATE TABLE field_index_builds (
        tenant_id TEXT NOT NULL,
        collection TEXT NOT NULL,
        path TEXT NOT NULL,
        kind TEXT NOT NULL,
        state TEXT NOT NULL,
        built_through INTEGER NOT NULL,
        target INTEGER NOT NULL,
        total INTEGER NOT NULL,
        done INTEGER NOT NULL,
        multi INTEGER NOT NULL DEFAULT 0,
        error TEXT,
        PRIMARY KEY (tenant_id, collection, path)
      ) STRICT;
      CREATE TABLE field_postings (
        tenant_id TEXT NOT NULL,
        collection TEXT NOT NULL,
        path TEXT NOT NULL,
        value ANY,
        doc_seq INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX field_postings_lookup ON field_postings(tenant_id, collection, path, value, doc_seq);
      CREATE INDEX field_postings_doc ON field_postings(doc_seq);
    `,
  },
  {
    version: 18,
    description: 'text analysis settings of collections: language, stop words, synonyms (issue #42)',
    // A collection's setting, copied with it by a snapshot; applied at query time, so no index depends on it.
    sql: `ALTER TABLE collections ADD COLUMN analysis TEXT NOT NULL DEFAULT '{}';`,
  },
  {
    version: 19,
    description: 'the public live documents of a collection, indexed (issue #39: the access rule as an index)',
    // With document_access_principal, what a viewer may read is known from indexes: the public live documents of
    // the collection, and those with an entry for the viewer's principals. A vector search whose readable documents
    // are few searches those alone, instead of checking HNSW candidates one by one until enough are readable.
    sql: `CREATE INDEX documents_public ON documents(tenant_id, primary_table)
            WHERE visibility = 'public' AND deleted_at IS NULL AND superseded = 0;`,
  },
  {
    version: 20,
    description: 'sparse vectors: declared per collection, and their inverted index (issue #42, decision 0058)',
    // Clustered by term (WITHOUT ROWID): a query term's posting list is one range read. Derived from the documents'
    // fields.sparse_vectors, written in the write's transaction; by doc_seq to remove a version's postings.
    sql: `ALTER TABLE collections ADD COLUMN sparse_vectors TEXT NOT NULL DEFAULT '{}';
      CREATE TABLE sparse_postings (
        tenant_id TEXT NOT NULL,
        collection TEXT NOT NULL,
        name TEXT NOT NULL,
        term INTEGER NOT NULL,
        doc_seq INTEGER NOT NULL,
        value REAL NOT NULL,
        PRIMARY KEY (tenant_id, collection, name, term, doc_seq)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX sparse_postings_doc ON sparse_postings(doc_seq);`,
  },
  {
    version: 21,
    description: 'field postings by document, path and value: a covering index for probes (issue #39, decision 0068)',
    // A probe (a condition checked on the postings of a few documents, and the check of HNSW candidates) reads
    // (doc_seq, path, value): from the index alone, without a table row per posting. It replaces the index by
    // doc_seq, whose lookups (a version's postings deleted) it serves as well.
    sql: `CREATE INDEX field_postings_doc_values ON field_postings(doc_seq, path, value);
      DROP INDEX field_postings_doc;`,
  },
  {
    version: 22,
    description: 'cluster mode: the last sequence applied of each collection-shard subject (issue #41, decision 0062)',
    // A partitioned collection's shards are subjects of one stream (godb-collections): a holder applies each with a
    // consumer filtered to it, from the sequence recorded here in the transaction of the operation it applied.
    sql: `CREATE TABLE cluster_subject_applied (
        subject TEXT PRIMARY KEY,
        seq INTEGER NOT NULL
      ) STRICT, WITHOUT ROWID;`,
  },
];
