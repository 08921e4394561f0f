import { ScrollTable } from '../../../components/ui/scroll-table';
import { ColumnHeads } from '../column-heads';

const products = [
  'GoDB',
  'Qdrant',
  'Weaviate',
  'Milvus',
  'Elasticsearch',
  'Meilisearch',
  'Typesense',
  'pgvector',
] as const;
type Row = readonly [string, ...string[]];

const rows: Row[] = [
  ['Language', 'TypeScript', 'Rust', 'Go', 'Go, C++', 'Java', 'Rust', 'C++', 'C (PostgreSQL)'],
  ['Embedded, no install', 'yes', 'no', 'embedded (limited)', 'Milvus Lite', 'no', 'no', 'no', 'needs PostgreSQL'],
  [
    'Vector index',
    'HNSW (f16)',
    'HNSW, quantized',
    'HNSW, flat',
    'HNSW, IVF, DiskANN, GPU',
    'HNSW',
    'HNSW (arroy)',
    'HNSW',
    'HNSW, IVFFlat',
  ],
  [
    'Full-text ranking',
    'BM25 (own in-memory index)',
    'sparse vectors',
    'BM25F',
    'sparse / BM25',
    'BM25, rich analyzers',
    'own ranking rules',
    'own ranking',
    'ts_rank',
  ],
  [
    'Hybrid fusion',
    'DBSF (relative), DBSF, weighted, RRF, learned',
    'RRF, DBSF',
    'ranked, relative score',
    'RRF, weighted',
    'RRF',
    'semantic ratio',
    'rank fusion',
    'by hand in SQL',
  ],
  [
    'Built-in embeddings, offline',
    'yes (USE Lite, GloVe)',
    'FastEmbed (client)',
    'modules',
    'model functions',
    'ML nodes',
    'via providers',
    'built-in models',
    'no',
  ],
  ['Geo search', 'yes', 'yes', 'yes', 'limited', 'yes', 'yes', 'yes', 'with PostGIS'],
  [
    'Graph queries',
    'paths, centralities, node embeddings',
    'no',
    'cross-references',
    'no',
    'no',
    'no',
    'no',
    'recursive SQL',
  ],
  [
    'Multi-tenancy',
    'JWT tenants, ACLs',
    'payload / collections',
    'native',
    'partitions',
    'index / DLS',
    'tenant tokens',
    'scoped keys',
    'row-level security',
  ],
  [
    'Clustering',
    'preview (NATS JetStream log)',
    'Raft',
    'Raft',
    'distributed',
    'distributed',
    'replication (cloud)',
    'Raft',
    'PostgreSQL replication',
  ],
  [
    'Maturity',
    'beta',
    'production',
    'production',
    'production',
    'production',
    'production',
    'production',
    'production',
  ],
];

export default function Comparison() {
  return (
    <>
      <p>
        An honest comparison as of this release. GoDB’s strengths are one process that does text, vector, hybrid, geo
        and access control with offline embeddings; its weaknesses are maturity and scale — it is a beta on a single
        node, while the others run large production clusters.
      </p>
      <ScrollTable label="GoDB compared with similar products">
        <table>
          <ColumnHeads names={['Capability', ...products]} />
          <tbody>
            {rows.map(([name, ...cells]) => (
              <tr key={name}>
                <th scope="row">{name}</th>
                {cells.map((cell, i) => (
                  <td key={products[i]}>{cell}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollTable>
      <p>
        When to choose something else: billions of vectors or GPU indexes (Milvus), complex text analysis and log
        analytics (Elasticsearch), an existing PostgreSQL estate (pgvector), or a managed production service today
        (Qdrant, Weaviate).
      </p>
    </>
  );
}
