import type { Documents } from '../../engine/documents/documents.js';
import type { Maintenance } from '../../engine/documents/maintenance.js';
import type { JobWrites } from '../job-writes.js';
import type { DocumentCommands } from '../../engine/operations/document-commands.js';
import type { NodeLog } from '../../engine/operations/operation.js';
import type { BackgroundWork } from './background-work.js';
import type { ImportPool } from './import-workers/import-pool.js';

export interface DocumentDeps {
  readonly documents: Documents;
  readonly maintenance: Maintenance;
  readonly jobs: JobWrites;
  /** Bounds asynchronous adds and imports; one per server (createUseCases makes it when not given). */
  readonly background?: BackgroundWork;
  /** The documents' writes as operations of the log. */
  readonly commands: DocumentCommands;
  /**
   * The log every write is submitted to. A change decided on the document's access (visibility, ACL) first catches
   * up with it, so it is decided on every write acknowledged before the request arrived, wherever it was taken.
   */
  readonly log: NodeLog;
  /** Worker threads that prepare NDJSON import lines (IMPORT_THREADS); absent or null: prepared on this thread. */
  readonly importPool?: ImportPool | null;
}
