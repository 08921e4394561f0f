import { apiUpload, type ApiResponse } from '../../../lib/api-client';

/**
 * POST /api/v1/documents/import: an NDJSON file streamed as the body, with the upload's progress.
 *
 * @example await importDocuments(token, file, { async: 'true' }, (sent, total) => setProgress(sent / total));
 */
export function importDocuments(
  token: string | null,
  file: Blob,
  query: Record<string, string> | undefined,
  onProgress: (sent: number, total: number) => void,
): Promise<ApiResponse> {
  return apiUpload('/api/v1/documents/import', {
    token,
    file,
    contentType: 'application/x-ndjson',
    onProgress,
    ...(query && { query }),
  });
}
