// npm run bench:grpc — text and vector search QPS over gRPC next to REST (keep-alive HTTP), same server, same
// data, same queries, 10 concurrent callers each.
import { credentials, Metadata, type GrpcObject, type ServiceClientConstructor } from '@grpc/grpc-js';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { loadGodbProto } from '../server/src/transport/grpc/grpc-server.js';
import { freePort, startServerProcess } from '../e2e/support/server-process.js';
import { random, syntheticText } from './engine-fixture.js';
import { caveat, saveResults, table } from './support.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const total = Number(process.env.BENCH_DOCS ?? 20_000);
caveat();
const grpcPort = await freePort();
const server = await startServerProcess({
  GRPC_PORT: String(grpcPort),
  RATE_LIMIT_RPS: '1000000',
  RATE_LIMIT_BURST: '1000000',
  LOG_LEVEL: 'error',
  MODEL_CACHE_DIR: join(tmpdir(), 'godb-test-model-cache'),
});
const post = async (path: string, body: unknown, token?: string) =>
  (await (
    await fetch(`${server.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
      body: JSON.stringify(body),
    })
  ).json()) as Record<string, unknown>;
const credentialsBody = { email: `grpc-${randomUUID()}@example.com`, password: 'password-1234' };
await post('/auth/register', { ...credentialsBody, tenant_id: randomUUID() });
const token = (await post('/auth/login', credentialsBody)).token as string;
const next = random(9);
for (let i = 0; i < total; i += 2000) {
  await post(
    '/api/v1/documents/batch',
    Array.from({ length: 2000 }, (_v, j) => ({
      id: `d${i + j}`,
      title: syntheticText(next, 6),
      content: syntheticText(next, 50),
      embedding_options: { model_name: 'glove-100' },
    })),
    token,
  );
}
const doc = (await (
  await fetch(`${server.baseUrl}/api/v1/documents/d1?include_embeddings=true`, {
    headers: { authorization: `Bearer ${token}` },
  })
).json()) as { document: { embeddings: { vector: number[] }[] } };
const vector = doc.document.embeddings[0]!.vector;
const queries = {
  text: {
    rest: ['/api/v1/search/text', { query: 'boundary layer separation', limit: 10 }],
    grpc: ['TextSearch', { query: 'boundary layer separation', limit: 10 }],
  },
  vector: {
    rest: [
      '/api/v1/search/vector',
      { vector, threshold: 0, limit: 10, embedding_options: { model_name: 'glove-100' } },
    ],
    grpc: ['VectorSearch', { vector, threshold: 0, limit: 10, embedding_options: { model_name: 'glove-100' } }],
  },
} as const;

const { grpc } = loadGodbProto();
const client = new (((grpc.godb as GrpcObject).v1 as GrpcObject).SearchService as ServiceClientConstructor)(
  `127.0.0.1:${grpcPort}`,
  credentials.createInsecure(),
) as unknown as Record<string, (r: unknown, m: Metadata, cb: (e: unknown) => void) => void>;
const metadata = new Metadata();
metadata.set('authorization', `Bearer ${token}`);

async function load(callOnce: () => Promise<unknown>): Promise<number> {
  await callOnce();
  let done = 0;
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (performance.now() < end) {
        await callOnce();
        done += 1;
      }
    }),
  );
  return done / seconds;
}

const rows: Record<string, string | number>[] = [];
for (const [name, q] of Object.entries(queries)) {
  const restQps = await load(async () => {
    const res = await fetch(`${server.baseUrl}${q.rest[0]}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(q.rest[1]),
    });
    await res.arrayBuffer();
  });
  const grpcQps = await load(
    () =>
      new Promise<void>((resolve, reject) =>
        client[q.grpc[0]]!(q.grpc[1], metadata, (e) => (e ? reject(e) : resolve())),
      ),
  );
  rows.push({
    search: name,
    'REST QPS': Math.round(restQps),
    'gRPC QPS': Math.round(grpcQps),
    'gRPC / REST': (grpcQps / restQps).toFixed(2),
  });
}
table(rows);
saveResults('grpc', rows);
(client as unknown as { close(): void }).close();
await server.stop();
