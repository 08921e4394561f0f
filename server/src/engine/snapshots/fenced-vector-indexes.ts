import { createError } from '@godb/contract';
import { VectorIndexes } from '../vectors/vector-index.js';

/**
 * The vector indexes of a node that restores tenants online: an index of a tenant whose rows a restore is replacing
 * is never loaded or built meanwhile — its rows are half deleted or half copied, so a graph built from them would
 * be wrong, and its files (saved by a checkpoint) would be in the way of the snapshot's. Queries and rebuilds of
 * that tenant answer 503 TENANT_RESTORING (its requests are refused before this anyway; this also covers work that
 * reaches the index another way), and a write's index update is left out (the restore forgets the tenant's indexes
 * when it ends, so the next query loads the restored files or builds from the restored rows). Start-up warm-up never
 * sees such a tenant: its index files are removed when the engine opens (see OnlineRestore).
 */
export class FencedVectorIndexes extends VectorIndexes {
  /** The snapshot a tenant's rows are being replaced from, or undefined (set once the restore exists). */
  #replacing: (tenantId: string) => string | undefined = () => undefined;

  /** Tells the indexes which tenants are being replaced (see OnlineRestore.replacing). */
  fence(replacing: (tenantId: string) => string | undefined): void {
    this.#replacing = replacing;
  }

  #refuse(tenantId: string): void {
    const snapshot = this.#replacing(tenantId);
    if (snapshot !== undefined)
      throw createError('TENANT_RESTORING', { snapshot_id: snapshot }, { details: { retry_after: 5 } });
  }

  override ready(tenantId: string, model: string, dims: number): Promise<void> {
    try {
      this.#refuse(tenantId);
    } catch (error) {
      return Promise.reject(error);
    }
    return super.ready(tenantId, model, dims);
  }

  override size(tenantId: string, model: string, dims: number): number {
    this.#refuse(tenantId);
    return super.size(tenantId, model, dims);
  }

  override async search(...args: Parameters<VectorIndexes['search']>): ReturnType<VectorIndexes['search']> {
    this.#refuse(args[0]);
    return super.search(...args);
  }

  override rebuild(tenantId: string, model: string, dims: number): number {
    this.#refuse(tenantId);
    return super.rebuild(tenantId, model, dims);
  }

  override apply(...args: Parameters<VectorIndexes['apply']>): void {
    if (this.#replacing(args[0]) !== undefined) return;
    super.apply(...args);
  }
}
