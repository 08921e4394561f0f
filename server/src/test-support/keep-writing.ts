/**
 * Writes while a test does something else: `write(i)` for i = 0, 1, … one after the other until `stop()`, each
 * answering the id it wrote once the server acknowledged it.
 *
 * @example const writer = keepWriting(async (i) => …); await writer.acknowledgedAtLeast(3); …; await writer.stop();
 */
export function keepWriting(write: (i: number) => Promise<string>) {
  const acknowledged: string[] = [];
  let writing = true;
  const loop = (async () => {
    for (let i = 0; writing; i++) acknowledged.push(await write(i));
  })();
  return {
    acknowledged,
    async acknowledgedAtLeast(count: number) {
      while (acknowledged.length < count) await new Promise((done) => setImmediate(done));
    },
    async stop() {
      writing = false;
      await loop;
    },
  };
}
