import { apiUpload, type ApiResponse } from '../../../lib/api-client';

/**
 * POST /api/v1/snapshots/upload: a snapshot's tar archive streamed as the body, with the upload's progress.
 *
 * @example await uploadSnapshot(token, file, (sent, total) => setProgress(sent / total));
 */
export function uploadSnapshot(
  token: string | null,
  file: Blob,
  onProgress: (sent: number, total: number) => void,
): Promise<ApiResponse> {
  return apiUpload('/api/v1/snapshots/upload', { token, file, contentType: 'application/x-tar', onProgress });
}
