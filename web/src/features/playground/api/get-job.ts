import { operationById } from '@godb/contract';
import { useQuery } from '@tanstack/react-query';
import { callOperation } from '../../../lib/api-client';

/** The state of a background job, as GET /api/v1/jobs/{id} answers it. */
export interface JobState {
  readonly id: string;
  readonly status: 'queued' | 'running' | 'done' | 'failed';
  readonly processed: number;
  readonly total: number;
  readonly error?: string;
  readonly rate?: number;
  readonly eta_s?: number;
}

/** GET /api/v1/jobs/{id}: the progress of an asynchronous import, add or snapshot. */
export function getJob(token: string, jobId: string): Promise<JobState> {
  return callOperation(operationById('get-job'), { token, params: { id: jobId } });
}

const finished = (job: JobState | undefined) => job?.status === 'done' || job?.status === 'failed';

/** A job's progress, polled every second until it is done or failed (or its answer is an error). */
export function useJob(token: string, jobId: string | null) {
  return useQuery({
    queryKey: ['job', token, jobId],
    queryFn: () => getJob(token, jobId ?? ''),
    enabled: jobId !== null,
    refetchInterval: (query) => (finished(query.state.data) || query.state.error ? false : 1000),
  });
}
