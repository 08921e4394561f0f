import { useEffect } from 'react';
import { ApiError } from '../../lib/api-client';
import { useJob } from './api/get-job';
import styles from './playground.module.css';

/**
 * The progress of the background job an answer started (an asynchronous add or import, a snapshot), polled until
 * it is done or failed: lines or files processed of the total, the rate and the time left when the server knows.
 */
export function JobProgress({
  token,
  jobId,
  onSessionEnd,
}: {
  token: string;
  jobId: string;
  /** The server refused the login token itself (401): the playground logs out. */
  onSessionEnd: () => void;
}) {
  const { data: job, error } = useJob(token, jobId);
  const label = `Job ${jobId}`;
  const refused = error instanceof ApiError && error.endsSession;
  useEffect(() => {
    if (refused) onSessionEnd();
  }, [refused, onSessionEnd]);
  if (error) {
    return (
      <p className={styles.description} role="status">
        {label}: {error instanceof ApiError ? error.message : (error as Error).message}
      </p>
    );
  }
  const total = job?.total ?? 0;
  const processed = job?.processed ?? 0;
  const percent = total > 0 ? Math.round((processed / total) * 100) : job?.status === 'done' ? 100 : 0;
  return (
    <section className={styles.job} aria-label={label}>
      <p className={styles.description} role="status">
        <label htmlFor="job-progress">{label}: </label>
        <strong>{job?.status ?? 'queued'}</strong>
        {total > 0 && ` — ${processed.toLocaleString('en')} of ${total.toLocaleString('en')} (${percent}%)`}
        {job?.rate !== undefined && job.status === 'running' && `, ${Math.round(job.rate).toLocaleString('en')}/s`}
        {job?.eta_s !== undefined && job.status === 'running' && `, about ${job.eta_s} s left`}
        {job?.error && ` — ${job.error}`}
      </p>
      <progress id="job-progress" max={100} value={percent} />
    </section>
  );
}
