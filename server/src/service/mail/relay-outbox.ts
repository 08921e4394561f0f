import { newMailId, type OutgoingMail, type Outbox, type StoredMail } from '../../engine/mail/outbox.js';
import { type fencedOut, type ClusterReads, type OperationLog } from '../../engine/operations/operation.js';

/** The duty whose fencing token the relay's marks carry in cluster mode. */
export const mailRelayDuty = 'mail-relay';

/** The outbox as the relay uses it: what is due, and its marks; a mark answers false when it was fenced out. */
export interface RelayOutbox {
  due(): Promise<StoredMail[]>;
  markSent(id: string): Promise<boolean>;
  markFailed(id: string, attempts: number, error: string, baseDelayMs: number): Promise<boolean>;
}

/** Queues messages; resolves with their ids once they are stored (cluster mode: in the log and applied here). */
export type EnqueueMail = (messages: readonly OutgoingMail[]) => Promise<string[]>;

/**
 * Queuing mail: an operation (`mail`) every node applies, with the message ids decided before it is submitted.
 *
 * @example const enqueue = mailQueue(log); await enqueue([message]);
 */
export function mailQueue(log: OperationLog): EnqueueMail {
  return async (messages) => {
    const withIds = messages.map((m) => ({ ...m, id: newMailId() }));
    return (await log.submit({ kind: 'mail', method: 'enqueue', args: [withIds] })) as string[];
  };
}

/** The relay of a node that is the only one (embedded): it delivers its outbox always; its marks carry no fence. */
export function soleRelayOutbox(outbox: Outbox, log: OperationLog): RelayOutbox {
  return {
    due: () => Promise.resolve(outbox.due()),
    markSent: async (id) => {
      await log.submit({ kind: 'mail', method: 'markSent', args: [id] });
      return true;
    },
    markFailed: async (id, attempts, error, base) => {
      await log.submit({ kind: 'mail', method: 'markFailed', args: [id, attempts, error, base] });
      return true;
    },
  };
}

/**
 * Cluster mode's relay: it delivers only while this node holds the lease on the singleton work (`token` answers its
 * fencing token, or null), once caught up with the log (so it sees the marks of the previous holder), and its marks
 * are operations carrying that token: applied on every node, refused everywhere once a newer holder marked.
 */
export function leasedRelayOutbox(
  outbox: Outbox,
  log: OperationLog & ClusterReads,
  token: () => number | null,
): RelayOutbox {
  const mark = async (
    call: { method: 'markSent'; args: [string] } | { method: 'markFailed'; args: [string, number, string, number] },
  ) => {
    const held = token();
    if (held === null) return false;
    const outcome = await log.submit({ kind: 'mail', ...call, fence: { duty: mailRelayDuty, token: held } });
    return (outcome as typeof fencedOut | undefined)?.fenced !== true;
  };
  return {
    async due() {
      if (token() === null) return [];
      await log.catchUp({ strong: true });
      return token() === null ? [] : outbox.due();
    },
    markSent: (id) => mark({ method: 'markSent', args: [id] }),
    markFailed: (id, attempts, error, base) => mark({ method: 'markFailed', args: [id, attempts, error, base] }),
  };
}
