import './runtime-flags.js';
import { ConfigError, loadConfig } from './config/env.js';
import { createServer } from './compose/create-server.js';
import { startRestoringResponder } from './transport/http/restoring-responder.js';
import { startExitWatchdog } from './exit-watchdog.js';
import { stdoutLogDestination } from './logging/log-destination.js';

/** How long a stop may take before the process exits anyway (compose/shutdown.ts cuts in-flight requests sooner). */
const forceExitMs = 10_000;

/** Starts GoDB: site and API on PORT, data in DATA_DIR; stops gracefully on SIGINT/SIGTERM. */
async function main(): Promise<void> {
  let config;
  let server;
  try {
    config = loadConfig(process.env);
    const port = config.PORT;
    const host = config.HOST;
    server = await createServer(config, undefined, {
      // Cluster mode: while a snapshot is restored before the store opens, PORT answers health and readiness.
      whileRestoring: async (state) => (await startRestoringResponder(host, port, state)).close,
    });
  } catch (error) {
    // A setting that is wrong, or names something that cannot be used (an S3 bucket): one line, no stack.
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    // Two deadlines: the in-process timer exits with 1 if closing takes too long; the watchdog process kills this
    // one if even that cannot run (the main thread blocked, or process.exit itself waiting).
    startExitWatchdog(forceExitMs + 5_000);
    const force = setTimeout(() => process.exit(1), forceExitMs);
    force.unref();
    server.app.log.info({ signal }, 'shutting down');
    await server.close();
    // Give the log reader a moment for the last lines; a reader that has gone or stalled is not waited for.
    await stdoutLogDestination().drain(500);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  await server.app.listen({ port: config.PORT, host: config.HOST });
  // The default model's slow one-time preparation (the GloVe conversion, when glove-100 is the default) starts in
  // the background; every other model is prepared when a request first needs it.
  server.engine.embedder
    .warmUp()
    .catch((error: unknown) => server.app.log.warn({ err: error }, 'embedding warm-up failed'));
  server.app.log.info(
    `GoDB is serving the website and API on http://${config.HOST}:${config.PORT} (data in ${config.DATA_DIR})`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(
    `GoDB failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
