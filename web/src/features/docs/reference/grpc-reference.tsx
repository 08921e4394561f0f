import { grpcMessages, grpcPackage, grpcServices } from '@godb/contract';
import { useMemo, useState } from 'react';
import { matcher } from '../pattern-search';
import { PatternSearchBox } from './pattern-search-box';
import { sentence } from './schema-text';
import styles from './reference.module.css';
import { ColumnHeads } from '../column-heads';

/** The gRPC reference: services, methods and their messages, searchable like the REST reference. */
export function GrpcReference() {
  const [query, setQuery] = useState('');
  const messages = useMemo(() => new Map(grpcMessages.map((m) => [m.name, m])), []);
  const test = matcher(query);
  const services = grpcServices
    .map((service) => ({
      ...service,
      methods: service.methods.filter((m) => {
        const request = messages.get(m.request);
        const response = messages.get(m.response);
        const texts = [
          service.name,
          service.description,
          m.name,
          m.description,
          m.request,
          m.response,
          `rpc ${m.name}(${m.clientStreaming ? 'stream ' : ''}${m.request}) returns (${m.response})`,
          ...(request?.fields.map((f) => f.name) ?? []),
          ...(response?.fields.map((f) => f.name) ?? []),
        ];
        return texts.some(test);
      }),
    }))
    .filter((s) => s.methods.length > 0 || test(s.name));

  return (
    <div>
      <p>
        Package <code>{grpcPackage}</code>, served on <code>GRPC_PORT</code> (50051). Authenticate with the metadata{' '}
        <code>authorization: Bearer &lt;token&gt;</code> (a login token or an API key) or{' '}
        <code>api-key: &lt;key&gt;</code>. The proto file is <code>contract/proto/godb.proto</code>. In cluster mode the
        metadata also carries what REST carries in headers: <code>idempotency-key</code> on a write (a retry with it is
        applied once), <code>x-godb-min-seq</code> or <code>x-godb-consistency: strong</code> on a read (wait until this
        node has applied that write, or everything the caller’s shards hold), and every answer’s initial metadata says{' '}
        <code>x-godb-seq</code>, how far the answering node had applied the shards the answer depends on, as{' '}
        <code>shard:sequence</code> pairs (<code>0:17,5:42</code>: the directory’s shard and the caller’s tenant’s).
      </p>
      <PatternSearchBox
        id="grpc-search"
        label="Search services, methods and messages"
        placeholder="Regular expression, e.g. Search$ or user_id"
        query={query}
        onChange={setQuery}
        onClear={() => setQuery('')}
      />
      {services.map((service) => (
        <section key={service.name} className={styles.endpoint} aria-labelledby={`svc-${service.name}`}>
          <h3 id={`svc-${service.name}`}>{service.name}</h3>
          <p>{sentence(service.description)}</p>
          {service.methods.map((m) => (
            <div key={m.name} className={styles.rpc} data-rpc={m.name}>
              <h4 className={styles.signature}>
                <code>
                  rpc {m.name}({m.clientStreaming ? 'stream ' : ''}
                  {m.request}) returns ({m.response})
                </code>
              </h4>
              <p>{sentence(m.description)}</p>
              {[m.request, m.response].map((name) => {
                const message = messages.get(name);
                if (!message) return null;
                return (
                  <div key={name} className={styles.tableWrap}>
                    <table>
                      <caption>
                        message <code>{name}</code>
                      </caption>
                      <ColumnHeads names={['#', 'Field', 'Type', 'Description']} />
                      <tbody>
                        {message.fields.map((f) => (
                          <tr key={f.name}>
                            <td>{f.number}</td>
                            <td>
                              <code>{f.name}</code>
                            </td>
                            <td>{`${f.repeated ? 'repeated ' : ''}${f.type}`}</td>
                            <td>{f.description}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                );
              })}
            </div>
          ))}
        </section>
      ))}
      {services.length === 0 && <p>No service, method or message matches.</p>}
    </div>
  );
}
