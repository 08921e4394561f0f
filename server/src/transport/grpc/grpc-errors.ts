import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { createError, grpcStatusCodes, isGoDBError } from '@godb/contract';

/** A catalogue error as a gRPC status (code from the catalogue), with its code and field in the trailers. */
export function toServiceError(error: unknown, requestId: string, log: (err: unknown) => void): ServiceError {
  const godb = isGoDBError(error) ? error : createError('INTERNAL', { request_id: requestId });
  if (!isGoDBError(error)) log(error);
  const metadata = new Metadata();
  metadata.set('godb-error-code', godb.code);
  metadata.set('godb-request-id', requestId);
  if (godb.field) metadata.set('godb-field', godb.field);
  return Object.assign(new Error(godb.message), {
    code: grpcStatusCodes[godb.grpc] ?? status.INTERNAL,
    details: godb.message,
    metadata,
  });
}
