import type { Documents } from '../../engine/documents/documents.js';
import type { Maintenance } from '../../engine/documents/maintenance.js';
import type { JobStore } from '../../engine/jobs/job-store.js';
import type { OperationLog } from '../../engine/cluster/operation.js';
import type { BackgroundWork } from './background-work.js';

export interface DocumentDeps {
  readonly documents: Documents;
  readonly maintenance: Maintenance;
  readonly jobs: JobStore;
  /** Bounds asynchronous adds and imports; one per server (createUseCases makes it when not given). */
  readonly background?: BackgroundWork;
  /** Cluster mode: the replicated log that takes index maintenance (absent: the embedded store). */
  readonly log?: OperationLog | null;
}
