/**
 * A use-case result answered with another status than the operation's usual success status (for example 202
 * Accepted for work that continues in the background). The status must be listed in the operation's
 * `alternatives`.
 */
export class StatusResult<T = unknown> {
  constructor(
    readonly status: number,
    readonly body: T,
  ) {}
}
