/**
 * The tenants restores hold, each with the snapshot it is restored from: fenced ones (their requests answer 503
 * `TENANT_RESTORING`, so nothing sees half a restore) and, among them, those whose rows are being replaced (a
 * `tenant_restores` row exists: from after the drain until the end, or until a later restore of the tenant finishes
 * one that failed), from which nothing may be derived (see FencedVectorIndexes).
 *
 * @example fences.fence(tenant, snapshotId); fences.startReplacing(tenant, snapshotId); … fences.lift(tenant);
 */
export class RestoreFences {
  /** Tenants being restored (fenced), with the snapshot each is restored from. */
  readonly #fenced = new Map<string, string>();
  /** Tenants whose rows are being replaced, with the snapshot. */
  readonly #replacing = new Map<string, string>();

  /**
   * The snapshot a tenant is being restored from, or undefined; without a tenant, that of any tenant restore under
   * way (the first fenced).
   */
  restoring(tenantId?: string): string | undefined {
    return tenantId === undefined ? this.#fenced.values().next().value : this.#fenced.get(tenantId);
  }

  /** The snapshot a tenant's rows are being replaced from, or undefined. */
  replacing(tenantId: string): string | undefined {
    return this.#replacing.get(tenantId);
  }

  /** Fences `tenantId` for a restore from `snapshotId`. */
  fence(tenantId: string, snapshotId: string): void {
    this.#fenced.set(tenantId, snapshotId);
  }

  /** Lifts the tenant's fence (its restore finished). */
  lift(tenantId: string): void {
    this.#fenced.delete(tenantId);
  }

  /** Records that the tenant's rows are being replaced from `snapshotId` (its `tenant_restores` row is written). */
  startReplacing(tenantId: string, snapshotId: string): void {
    this.#replacing.set(tenantId, snapshotId);
  }

  /** Records that the tenant's rows are replaced (its `tenant_restores` row is deleted). */
  endReplacing(tenantId: string): void {
    this.#replacing.delete(tenantId);
  }

  /** The fence a tenant has when no restore of it runs: that of a restore left unfinished, else none. */
  refence(tenantId: string): void {
    const pending = this.#replacing.get(tenantId);
    if (pending === undefined) this.#fenced.delete(tenantId);
    else this.#fenced.set(tenantId, pending);
  }
}
