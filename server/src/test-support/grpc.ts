import {
  credentials,
  Metadata,
  type Client,
  type GrpcObject,
  type ServiceClientConstructor,
  type ServiceError,
} from '@grpc/grpc-js';
import type { Clock } from '../engine/clock.js';
import { loadGodbProto } from '../transport/grpc/grpc-server.js';
import { freePort } from './nats-cluster.js';
import { startTestServer, type TestServer } from './server.js';

/** A client of one GoDB gRPC service: its unary methods by name. */
export type GrpcClient = Client &
  Record<string, (req: unknown, md: Metadata, cb: (e: ServiceError | null, r: unknown) => void) => void>;

/** A test server (see startTestServer) that also serves gRPC, on a free loopback port (`server.grpc.port`). */
export async function startGrpcTestServer(overrides: Record<string, string> = {}, clock?: Clock): Promise<TestServer> {
  return startTestServer({ GRPC_PORT: String(await freePort()), ...overrides }, clock);
}

/**
 * A client of the GoDB service `service` (`SearchService`, `AdminService`, `DocumentService` …) of a test server;
 * close it when done.
 *
 * @example const search = grpcClient(server, 'SearchService');
 */
export function grpcClient<T = GrpcClient>(server: TestServer, service: string): T {
  const pkg = (loadGodbProto().grpc.godb as GrpcObject).v1 as GrpcObject;
  const Service = pkg[service] as ServiceClientConstructor;
  return new Service(`127.0.0.1:${server.grpc!.port}`, credentials.createInsecure()) as unknown as T;
}

/**
 * Calls a unary method with `metadata` (such as `authorization` or `api-key`); answers its reply or rejects with the
 * ServiceError.
 *
 * @example await grpcCall(search, 'TextSearch', { query: 'wing' }, { authorization: `Bearer ${token}` });
 */
export function grpcCall<T>(
  client: GrpcClient,
  method: string,
  request: unknown,
  metadata: Record<string, string> = {},
): Promise<T> {
  const md = new Metadata();
  for (const [name, value] of Object.entries(metadata)) md.set(name, value);
  return new Promise((resolve, reject) =>
    client[method]!(request, md, (error, reply) => (error ? reject(error) : resolve(reply as T))),
  );
}
