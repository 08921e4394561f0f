/** Resolves after `ms`, without keeping the process alive for it. */
export const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms).unref());
