import { spawn } from 'node:child_process';

// The watchdog is a separate process because nothing inside this one is certain to run once the main thread is
// stuck: a timer needs the event loop; a worker thread is itself stopped and joined by process.exit(), which first
// runs 'exit' hooks (one looped for ever in issue #24) and then waits for every other worker thread (one inside a
// long native call does not stop). The watchdog holds the read end of a pipe from this process: when this process
// exits, for any reason, the pipe closes and the watchdog exits too, so it never outlives the server nor can it
// hit a reused pid.
const watchdogScript = `
const pid = Number(process.argv[1]);
const timer = setTimeout(() => {
  try { process.kill(pid, 'SIGKILL'); } catch {}
  process.exit(0);
}, Number(process.argv[2]));
const gone = () => { clearTimeout(timer); process.exit(0); };
process.stdin.on('end', gone).on('close', gone).on('error', gone).resume();
`;

/**
 * Kills this process with SIGKILL if it has not exited within `deadlineMs`, from a small separate process, so the
 * deadline holds even when this process's main thread is blocked (in an exit hook, a native wait, a worker join).
 * Returns at once; if the watchdog cannot be started, only the caller's own timer is left.
 *
 * @example process.on('SIGTERM', () => { startExitWatchdog(15_000); void stopGracefully(); });
 */
export function startExitWatchdog(deadlineMs: number): void {
  try {
    const watchdog = spawn(process.execPath, ['-e', watchdogScript, String(process.pid), String(deadlineMs)], {
      // Its own process group: a Ctrl-C sent to the terminal's group does not stop the watchdog with the server.
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
      env: {},
    });
    watchdog.on('error', () => undefined);
    watchdog.stdin.on('error', () => undefined);
    // Neither the watchdog nor its pipe may keep this process alive: its exit is what they wait for.
    watchdog.unref();
    (watchdog.stdin as unknown as { unref(): void }).unref();
  } catch {
    // spawn failed synchronously (EAGAIN, ENOMEM): the in-process timer still stands.
  }
}
