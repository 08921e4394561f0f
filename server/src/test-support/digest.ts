import { createHash } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export interface TenantDigest {
  /** Per collection (`primary_table`): how many document rows, and a hash of every version with its vectors. */
  readonly collections: Record<string, { documents: number; hash: string }>;
  /** Ids stored in more than one version: a write applied twice shows here. */
  readonly repeated: string[];
  readonly ids: Set<string>;
}

/** Reads a stopped node's store: every document version of the tenant with its chunks' vectors, per collection. */
export function tenantDigest(dataDir: string, tenantId: string): TenantDigest {
  const db = new Database(join(dataDir, 'godb.sqlite'), { readonly: true });
  try {
    const rows = db
      .prepare(
        `SELECT d.primary_table AS collection, d.id, d.version, d.superseded, d.deleted_at, d.created_at, d.updated_at,
                d.title,
                (SELECT group_concat(hex(c.vector), ',') FROM chunks c WHERE c.doc_seq = d.seq) AS vectors
         FROM documents d WHERE d.tenant_id = ? ORDER BY d.primary_table, d.id, d.version`,
      )
      .all(tenantId) as { collection: string | null; id: string }[];
    const grouped = new Map<string, unknown[]>();
    for (const row of rows) {
      const name = row.collection ?? '(none)';
      grouped.set(name, [...(grouped.get(name) ?? []), row]);
    }
    const collections = Object.fromEntries(
      [...grouped].map(([name, list]) => [
        name,
        { documents: list.length, hash: createHash('sha256').update(JSON.stringify(list)).digest('hex') },
      ]),
    );
    const counts = new Map<string, number>();
    for (const row of rows) counts.set(row.id, (counts.get(row.id) ?? 0) + 1);
    return {
      collections,
      repeated: [...counts].filter(([, n]) => n > 1).map(([id]) => id),
      ids: new Set(counts.keys()),
    };
  } finally {
    db.close();
  }
}
