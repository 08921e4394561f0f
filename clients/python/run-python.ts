// Runs Debian's python3 (what `.ci/run` installs) in this folder without blocking the event loop, so a GoDB
// server started by the same test process keeps answering while Python calls it.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const pythonClientDir = fileURLToPath(new URL('.', import.meta.url));
export const python = '/usr/bin/python3';

export interface PythonRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs python3 with `args` in clients/python; `env` is added to a copy of this process's environment. */
export function runPython(
  args: readonly string[],
  env: Record<string, string> = {},
  stdin?: string,
): Promise<PythonRun> {
  // No bytecode files left in the checkout.
  return runCommand(python, args, { cwd: pythonClientDir, env: { PYTHONDONTWRITEBYTECODE: '1', ...env }, stdin });
}

/** Runs `command` (python3, a venv's python or pip) in `cwd` without blocking the event loop. */
export function runCommand(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string>; stdin?: string | undefined },
): Promise<PythonRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      // Loopback never goes through a proxy.
      env: { ...process.env, NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}
