import { createHash } from 'node:crypto';
import type { OperationBody } from './operation.js';

/**
 * Where an operation of the replicated log goes (issue #17, ARCHITECTURE.md "Shards"). The directory (tenants, users,
 * groups, members, permissions, grants, API keys) is one shard, 0: its uniqueness rules span tenants (an e-mail is
 * unique across the node, so is a permission), and two registrations of one e-mail applied in a different order on two
 * nodes would diverge if they sat on two streams. Everything else a tenant owns (documents, collections, engagement,
 * visibility, ACLs, index maintenance) goes to the tenant's shard, fixed in the KV bucket `godb-shards`.
 *
 * The ordering rule across shards: a tenant-shard operation carries the directory sequence (shard 0) the node that took
 * it had applied when it decided it, and a node applies it only once its own shard 0 reached that sequence. Shard 0
 * never waits for another shard, so no two shards wait for each other. A new kind of operation is a type error here
 * until it is given a home.
 *
 * @example homeOf({ kind: 'create-collection', tenantId: 't', body }); // { tenantId: 't' }
 */
export type OperationHome = { readonly directory: true } | { readonly tenantId: string };

/** The shard of the directory, and of operations that belong to no tenant. */
export const directoryShard = 0;

const directory: OperationHome = { directory: true };

/** The home of an operation: the directory shard, or its tenant's shard. */
export function homeOf(body: OperationBody): OperationHome {
  switch (body.kind) {
    // Jobs and the mail outbox are the node's, across tenants (a gone node's jobs are failed in one operation; the
    // relay's fenced marks must be ordered with every mail): one total order, the directory's.
    case 'create-user':
    case 'directory':
    case 'create-api-key':
    case 'revoke-api-key':
    case 'job':
    case 'mail':
      return directory;
    case 'restore-snapshot':
      // A tenant's restore is ordered with its tenant's writes; a whole-node restore (the super admin's) is the
      // directory's, ordered before what nodes decide after it but not against other shards' operations in flight.
      return body.restorer.tenantId === undefined ? directory : { tenantId: body.restorer.tenantId };
    case 'write-documents':
    case 'delete-document':
    case 'delete-some':
      return { tenantId: body.viewer.tenantId };
    case 'documents':
      return { tenantId: body.args[0].tenantId };
    case 'create-collection':
    case 'delete-collection':
    case 'update-collection':
    case 'maintenance':
      return { tenantId: body.tenantId };
  }
}

/** The name of shard `i`'s stream: `godb-shard-00` … */
export const shardStream = (i: number): string => `godb-shard-${String(i).padStart(2, '0')}`;

/** The subject operations of shard `i` are published to: `godb.ops.00` … */
export const shardSubject = (i: number): string => `godb.ops.${String(i).padStart(2, '0')}`;

/**
 * The shard a tenant is proposed on its first write: a hash of its id, modulo the shard count. Only a proposal: the
 * entry in `godb-shards` (create-if-absent, whoever writes first) is what every node uses, so a later change of
 * this function or of a tenant's placement never moves a tenant silently.
 *
 * @example proposedShard('acme', 16); // a number in 0..15, the same on every node
 */
export function proposedShard(tenantId: string, shards: number): number {
  return createHash('sha256').update(tenantId).digest().readUInt32BE(0) % shards;
}
