import {
  clusterHandling,
  consistencyHeader,
  errorCatalogue,
  idempotencyKeyHeader,
  marksStale,
  minSeqHeader,
  operationErrors,
  operations,
  sequenceHeader,
  staleHeader,
  type CatalogueOperation,
} from '@godb/contract';
import { useMemo, useState } from 'react';
import { MethodBadge } from '../../../components/ui/method-badge';
import { InlineCode } from '../../../components/ui/inline-code';
import { SegmentedTabs } from '../../../components/ui/segmented-tabs';
import { matcher } from '../pattern-search';
import { GrpcReference } from './grpc-reference';
import { fieldRows, identifiersOf, sentence, type FieldRow, type JsonSchema } from './schema-text';
import { PatternSearchBox } from './pattern-search-box';
import list from '../../../components/ui/list-button.module.css';
import styles from './reference.module.css';
import { ColumnHeads } from '../column-heads';

function Fields({ title, rows }: { title: string; rows: FieldRow[] }) {
  if (rows.length === 0) return null;
  return (
    <>
      <h4>{title}</h4>
      <div className={styles.tableWrap}>
        <table>
          <ColumnHeads names={['Name', 'Type', 'Required', 'Default', 'Description']} />
          <tbody>
            {rows.map((r) => (
              <tr key={r.name}>
                <td>
                  <code>{r.name}</code>
                </td>
                <td>{r.type}</td>
                <td>{r.required ? 'yes' : 'no'}</td>
                <td>{r.default && <code>{r.default}</code>}</td>
                <td>{r.description}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/**
 * The headers an operation documents: Idempotency-Key on the writes cluster mode replicates, cluster mode's read
 * options, which every operation takes, the X-GoDB-Seq its answers carry in cluster mode, and X-GoDB-Stale on the
 * reads of replicated data.
 */
function headerRows(op: CatalogueOperation): FieldRow[] {
  const rows: FieldRow[] = [];
  if (clusterHandling[op.id] === 'replicated') {
    const { name, description } = idempotencyKeyHeader;
    rows.push({ name, type: 'string', required: false, default: '', description });
  }
  rows.push(
    {
      name: consistencyHeader.name,
      type: `one of ${consistencyHeader.values.join(', ')}`,
      required: false,
      default: consistencyHeader.default,
      description: consistencyHeader.description,
    },
    { name: minSeqHeader.name, type: 'string', required: false, default: '', description: minSeqHeader.description },
    {
      name: sequenceHeader.name,
      type: 'string, in the answer',
      required: false,
      default: '',
      description: sequenceHeader.description,
    },
  );
  if (marksStale(op.id)) {
    const { name, description } = staleHeader;
    rows.push({ name, type: 'true, in the answer', required: false, default: '', description });
  }
  return rows;
}

function statusCodes(op: CatalogueOperation): [number, string][] {
  const byStatus = new Map<number, string[]>();
  byStatus.set(op.success.status, [op.success.description]);
  for (const alt of op.alternatives ?? []) byStatus.set(alt.status, [alt.description]);
  for (const code of operationErrors(op)) {
    const status = errorCatalogue[code].http;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return [...byStatus].sort((a, b) => a[0] - b[0]).map(([status, what]) => [status, what.join(', ')]);
}

function Endpoint({ op, highlighted }: { op: CatalogueOperation; highlighted: boolean }) {
  const example = op.examples[0];
  return (
    <section
      id={`op-${op.id}`}
      className={highlighted ? `${styles.endpoint} ${styles.highlighted}` : styles.endpoint}
      aria-labelledby={`op-${op.id}-title`}
    >
      <header className={styles.endpointHeader}>
        <MethodBadge method={op.http.method} />
        <code className={styles.path}>{op.http.path}</code>
        <span className={styles.access}>{op.access === 'public' ? 'no token' : `${op.access} token`}</span>
      </header>
      <h3 id={`op-${op.id}-title`}>{op.name}</h3>
      <p>
        <InlineCode
          text={sentence(
            op.description,
            identifiersOf(op.params as JsonSchema, op.query as JsonSchema, op.body as JsonSchema),
          )}
        />
      </p>
      {op.http.aliases.length > 0 && (
        <p className={styles.aliases}>
          Also at:{' '}
          {op.http.aliases.map((a) => (
            <code key={a}>{a}</code>
          ))}
        </p>
      )}
      <Fields title="Path parameters" rows={fieldRows(op.params as JsonSchema | undefined)} />
      <Fields title="Query parameters" rows={fieldRows(op.query as JsonSchema | undefined)} />
      <Fields title="Body fields" rows={fieldRows(op.body as JsonSchema | undefined)} />
      <Fields title="Headers" rows={headerRows(op)} />
      {example?.body !== undefined && (
        <>
          <h4>Request body sample</h4>
          <pre>
            <code>{JSON.stringify(example.body, null, 2)}</code>
          </pre>
        </>
      )}
      {example && (
        <>
          <h4>Response sample ({example.response.status})</h4>
          <pre>
            <code>
              {typeof example.response.body === 'string'
                ? example.response.body
                : JSON.stringify(example.response.body, null, 2)}
            </code>
          </pre>
        </>
      )}
      <h4>Status codes</h4>
      <ul className={styles.codes}>
        {statusCodes(op).map(([status, what]) => (
          <li key={status}>
            <strong>{status}</strong> {what}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The REST reference: every operation of the catalogue, searchable by a regular expression. */
export function RestReference() {
  const [query, setQuery] = useState('');
  const [highlighted, setHighlighted] = useState<string | null>(null);
  const matches = useMemo(() => {
    const test = matcher(query);
    return operations.filter((op) =>
      [op.http.path, ...op.http.aliases, op.description, op.summary, op.name, op.category, op.http.method].some(test),
    );
  }, [query]);

  const jump = (id: string) => {
    setHighlighted(id);
    document.getElementById(`op-${id}`)?.scrollIntoView({ behavior: 'smooth', block: 'start' });
  };

  return (
    <div>
      <PatternSearchBox
        id="rest-search"
        label="Search endpoints"
        placeholder="Regular expression, e.g. ^/api/v1/search or POST"
        query={query}
        onChange={setQuery}
        onClear={() => (setQuery(''), setHighlighted(null))}
      >
        <p className={styles.count} aria-live="polite">
          {matches.length} of {operations.length} endpoints
        </p>
        {query !== '' && (
          <ul className={styles.results} aria-label="Matching endpoints">
            {matches.map((op) => (
              <li key={op.id}>
                <button type="button" className={list.button} onClick={() => jump(op.id)}>
                  <MethodBadge method={op.http.method} /> {op.http.path}
                </button>
              </li>
            ))}
          </ul>
        )}
      </PatternSearchBox>
      {matches.map((op) => (
        <Endpoint key={op.id} op={op} highlighted={highlighted === op.id} />
      ))}
    </div>
  );
}

/** The reference's two halves, one tab each. */
const interfaces = [
  { value: 'rest', label: 'REST' },
  { value: 'grpc', label: 'gRPC' },
] as const;

export default function ApiReference() {
  const [tab, setTab] = useState<'rest' | 'grpc'>('rest');
  return (
    <>
      <p>
        Generated from the API catalogue the server validates with. Every error answers{' '}
        <code>{'{ error: { code, message, status, field?, request_id } }'}</code>; authenticated calls send{' '}
        <code>Authorization: Bearer &lt;token&gt;</code>.
      </p>
      <h3>Authentication with API keys</h3>
      <p>
        A login token (<code>POST /auth/login</code>) suits people; programs use an API key,{' '}
        <code>godb_&lt;id&gt;_&lt;secret&gt;</code>. Create one with <code>POST /auth/api-keys</code> or in the
        playground’s API keys panel: its secret is shown once and stored only as a hash. Send it as{' '}
        <code>Authorization: Bearer &lt;key&gt;</code> or <code>api-key: &lt;key&gt;</code>, over REST or gRPC. A key
        acts as you, in your tenant, with a role no higher than yours, and has its own rate limit. It stops working when
        it expires, when it is revoked (<code>DELETE /auth/api-keys/&#123;keyID&#125;</code>, at once) or when its user
        is deleted; an unknown, expired or revoked key answers 401 without saying which.
      </p>
      <SegmentedTabs label="Interface" options={interfaces} value={tab} onChange={setTab} />
      <div role="tabpanel">{tab === 'rest' ? <RestReference /> : <GrpcReference />}</div>
    </>
  );
}
