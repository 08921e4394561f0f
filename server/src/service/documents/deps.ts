import type { Documents } from '../../engine/documents/documents.js';
import type { Maintenance } from '../../engine/documents/maintenance.js';
import type { JobStore } from '../../engine/jobs/job-store.js';

export interface DocumentDeps {
  readonly documents: Documents;
  readonly maintenance: Maintenance;
  readonly jobs: JobStore;
}
