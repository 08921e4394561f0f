import type { BackgroundWork } from '../documents/background-work.js';
import type { JobWrites } from '../job-writes.js';
import type { OperationLog } from '../../engine/operations/operation.js';
import type { OnlineRestore } from '../../engine/snapshots/online-restore.js';
import type { Snapshots } from '../../engine/snapshots/snapshots.js';

export interface SnapshotDeps {
  /** The node's snapshots; null for an engine without a data folder. */
  readonly snapshots: Snapshots | null;
  /** Restores into the running node; null for an engine without a data folder. */
  readonly restore: OnlineRestore | null;
  readonly jobs: JobWrites;
  /**
   * The log restores are submitted to (in a cluster every node restores the same archive, in log order; the
   * snapshots themselves are in a store every node reads).
   */
  readonly log: OperationLog;
  /** Background writes, whose activity per tenant a tenant restore waits for (see TenantActivity). */
  readonly background?: BackgroundWork;
  /**
   * How long a tenant restore waits for that work (RESTORE_DRAIN_TIMEOUT_MS) before it fails with
   * RESTORE_DRAIN_TIMEOUT, changing nothing; `sleep` resolves after `ms`. Unset: it waits as long as the work runs.
   */
  readonly restoreDrain?: { readonly timeoutMs: number; readonly sleep: (ms: number) => Promise<void> };
}
