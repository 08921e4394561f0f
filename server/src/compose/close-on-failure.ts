/** Something start-up opened and a failed start closes. */
export interface Closable {
  close(): unknown;
}

/**
 * Awaits one start-up step; when it fails, closes what the earlier steps opened (in the order given, newest first)
 * and throws the step's error on, so a node that cannot start leaves nothing open.
 *
 * @example const log = await closeOnFailure(openWriteLog(options), [engine, storage]);
 */
export async function closeOnFailure<T>(step: Promise<T>, opened: readonly Closable[]): Promise<T> {
  try {
    return await step;
  } catch (error) {
    for (const part of opened) await part.close();
    throw error;
  }
}
