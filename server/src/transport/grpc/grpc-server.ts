import {
  Server,
  ServerCredentials,
  status,
  Metadata,
  type GrpcObject,
  type ServiceClientConstructor,
  type ServiceDefinition,
  type handleClientStreamingCall,
  type handleUnaryCall,
  type sendUnaryData,
} from '@grpc/grpc-js';
import { loadSync, type PackageDefinition } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { createError, grpcServices, type OperationId } from '@godb/contract';
import { HealthImplementation } from 'grpc-health-check';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { loadPackageDefinition } from '@grpc/grpc-js';
import type { Credentials } from '../../service/auth/authenticate.js';
import type { Services } from '../../service/use-cases.js';
import { toServiceError } from './grpc-errors.js';
import { grpcMethods, grpcStreamMethods, type GrpcCall } from './grpc-methods.js';
import { idempotencyKeyOf } from '../../service/idempotency-key.js';
import { consistencyOf } from '../../service/read-consistency.js';
import type { Principal } from '../../service/context.js';

/** A call's credentials from its metadata, as REST reads them from headers. */
function credentialsOf(metadata: Metadata): Credentials {
  const text = (name: string) => {
    const values = metadata.get(name);
    // Several values are refused like any invalid key rather than one picked.
    if (values.length === 0) return undefined;
    return values.map(String).join(', ');
  };
  return { authorization: text('authorization'), apiKey: text('api-key') };
}

/** The proto generated from the contract (contract/proto/godb.proto). */
export const protoPath = fileURLToPath(new URL('../../../../contract/proto/godb.proto', import.meta.url));

export interface GrpcLogger {
  error(obj: object, message: string): void;
}

export interface RunningGrpc {
  readonly port: number;
  close(): Promise<void>;
}

export function loadGodbProto(): { definition: PackageDefinition; grpc: GrpcObject } {
  const definition = loadSync(protoPath, {
    keepCase: true,
    longs: Number,
    enums: String,
    defaults: false,
    oneofs: true,
  });
  return { definition, grpc: loadPackageDefinition(definition) };
}

/**
 * SearchService, AdminService and DocumentService on `port`, calling the same services as REST (same validation, access rules and
 * errors), with server reflection and the standard health service. Authentication: `authorization: Bearer <jwt or
 * API key>` or `api-key: <key>` metadata.
 */
export async function startGrpcServer(options: {
  services: Services;
  host: string;
  port: number;
  log: GrpcLogger;
  /** Resolves once the node serves its API (a cluster node catching up): the health service says NOT_SERVING till then. */
  started?: Promise<void>;
}): Promise<RunningGrpc> {
  const { definition, grpc } = loadGodbProto();
  const server = new Server();
  /** Authenticates a call, runs its work, and answers its result or its error. */
  const serve = (
    call: {
      metadata: Metadata;
      once(event: 'cancelled', listener: () => void): unknown;
      sendMetadata(metadata: Metadata): void;
    },
    callback: sendUnaryData<unknown>,
    operationId: OperationId,
    work: (principal: Principal, context: GrpcCall) => Promise<unknown>,
  ): void => {
    const requestId = randomUUID();
    const credentials = credentialsOf(call.metadata);
    const keys = call.metadata.get('idempotency-key');
    /** A metadata entry given once, as REST reads a header; several values are refused rather than one picked. */
    const single = (name: string) => {
      const values = call.metadata.get(name);
      return values.length === 0 ? undefined : values.length === 1 ? String(values[0]) : values;
    };
    // A client that cancels (or whose deadline passes) stops its work, as a closed HTTP connection does.
    const abort = new AbortController();
    call.once('cancelled', () => abort.abort(createError('REQUEST_CANCELLED')));
    let tenantId: string | undefined;
    // Cluster mode: a read's answer (an error too) says when this node cannot confirm it is current, as REST's
    // X-GoDB-Stale header.
    const markStale = (metadata: Metadata) => {
      if (options.services.clusterStale(operationId, tenantId) !== null) metadata.set('x-godb-stale', 'true');
      return metadata;
    };
    options.services
      .authenticate(credentials)
      .then((principal) => {
        tenantId = principal.tenantId;
        // A key's calls draw on the same per-key budget as its REST requests.
        if (principal.apiKeyId !== undefined) options.services.throttleApiKey(principal.apiKeyId);
        // Several values are refused (not a string) rather than one picked, as for credentials.
        const idempotencyKey = idempotencyKeyOf(
          keys.length === 0 ? undefined : keys.length === 1 ? String(keys[0]) : keys,
          'metadata.idempotency-key',
        );
        // Cluster mode's read options, as REST's X-GoDB-Consistency and X-GoDB-Min-Seq headers.
        const consistency = consistencyOf(single('x-godb-consistency'), single('x-godb-min-seq'), 'metadata');
        return work(principal, {
          requestId,
          signal: abort.signal,
          ...(idempotencyKey !== undefined && { idempotencyKey }),
          ...(consistency && { consistency }),
        });
      })
      .then((reply) => {
        // Cluster mode: how far this node had applied the log when it answered (a write's own sequence at least),
        // as REST's X-GoDB-Seq header; pass it back as x-godb-min-seq to read your write on another node.
        const position = options.services.clusterPosition(tenantId);
        if (position !== null) {
          const metadata = markStale(new Metadata());
          metadata.set('x-godb-seq', position);
          call.sendMetadata(metadata);
        }
        callback(null, reply);
      })
      .catch((error: unknown) => {
        const failure = toServiceError(error, requestId, (err) =>
          options.log.error({ err, requestId }, 'gRPC call failed'),
        );
        markStale(failure.metadata ?? new Metadata());
        callback(failure);
      });
  };
  const pkg = (grpc.godb as GrpcObject).v1 as GrpcObject;
  for (const service of grpcServices) {
    const implementation: Record<
      string,
      handleUnaryCall<Record<string, unknown>, unknown> | handleClientStreamingCall<Record<string, unknown>, unknown>
    > = {};
    for (const method of service.methods) {
      if (method.clientStreaming) {
        const handler = grpcStreamMethods[method.name];
        if (!handler) throw new TypeError(`no handler for ${service.name}.${method.name}`);
        const streaming: handleClientStreamingCall<Record<string, unknown>, unknown> = (call, callback) =>
          serve(call, callback, method.operationId as OperationId, (principal, context) =>
            handler(options.services, call as AsyncIterable<Record<string, unknown>>, principal, context),
          );
        implementation[method.name] = streaming;
        continue;
      }
      const handler = grpcMethods[method.name];
      if (!handler) throw new TypeError(`no handler for ${service.name}.${method.name}`);
      const unary: handleUnaryCall<Record<string, unknown>, unknown> = (call, callback) =>
        serve(call, callback, method.operationId as OperationId, (principal, context) =>
          handler(options.services, call.request, principal, context),
        );
      implementation[method.name] = unary;
    }
    server.addService((pkg[service.name] as ServiceClientConstructor).service as ServiceDefinition, implementation);
  }
  new ReflectionService(definition).addToServer(server);
  const names = ['', ...grpcServices.map((s) => `godb.v1.${s.name}`)];
  const health = new HealthImplementation(
    Object.fromEntries(names.map((name) => [name, options.started ? 'NOT_SERVING' : 'SERVING'])),
  );
  void options.started?.then(() => {
    for (const name of names) health.setStatus(name, 'SERVING');
  });
  health.addToServer(server);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(
      `${options.host === 'localhost' ? '127.0.0.1' : options.host}:${options.port}`,
      ServerCredentials.createInsecure(),
      (error, bound) => (error ? reject(error) : resolve(bound)),
    ),
  );
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        health.setStatus('', 'NOT_SERVING');
        server.tryShutdown(() => resolve());
        setTimeout(() => server.forceShutdown(), 5000).unref();
      }),
  };
}

export { status };
