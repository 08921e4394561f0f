import type { CatalogueOperation } from '@godb/contract';
import { useMutation } from '@tanstack/react-query';
import { apiRequest, valueOf, type ApiResponse } from '../../../lib/api-client';
import type { BuiltRequest } from '../build-request';

export interface SendInput {
  readonly op: CatalogueOperation;
  readonly request: BuiltRequest;
  /** The upload's progress, for a request whose body is a file. */
  readonly onProgress?: (sent: number, total: number) => void;
}

/**
 * Sends what the playground built for any operation of the catalogue (a JSON body, or a file streamed as the body
 * with its progress). Answers the success; throws ApiError for any other answer, NetworkFailure when none came.
 */
export async function sendOperation(token: string, input: SendInput): Promise<ApiResponse> {
  const { request, onProgress } = input;
  const response = await apiRequest(request.method, request.path, {
    token,
    ...(request.query && { query: request.query }),
    ...(request.body !== undefined && { body: request.body }),
    ...(request.file && { file: request.file }),
    ...(onProgress && { onProgress }),
  });
  valueOf(response);
  return response;
}

/** The playground's one mutation: whichever operation is selected, its answer or its error. */
export function useSendOperation(token: string) {
  return useMutation({ mutationFn: (input: SendInput) => sendOperation(token, input) });
}
