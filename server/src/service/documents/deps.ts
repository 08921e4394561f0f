import type { Documents } from '../../engine/documents/documents.js';
import type { Maintenance } from '../../engine/documents/maintenance.js';
import type { JobWrites } from '../job-writes.js';
import type { ClusterReads, OperationLog } from '../../engine/operations/operation.js';
import type { WriteClock } from '../write-time.js';
import type { BackgroundWork } from './background-work.js';

export interface DocumentDeps {
  readonly documents: Documents;
  readonly maintenance: Maintenance;
  readonly jobs: JobWrites;
  /** Bounds asynchronous adds and imports; one per server (createUseCases makes it when not given). */
  readonly background?: BackgroundWork;
  /** The engine's clock, which an embedded write is run at its decided time with (see atDecidedTime). */
  readonly writeClock?: WriteClock;
  /** Cluster mode: the replicated log that takes index maintenance (absent: the embedded store). */
  readonly log?: OperationLog | null;
  /**
   * Cluster mode: the log's reads. A change decided on the document's access (visibility, ACL) first catches up
   * with the log, so it is decided on every write acknowledged before the request arrived, wherever it was taken.
   */
  readonly cluster?: ClusterReads | null;
}
