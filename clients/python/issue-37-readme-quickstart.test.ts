import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../server/src/test-support/server.js';
import { pythonInstall, pythonQuickstart } from '../../web/src/features/docs/sections/python-quickstart.js';
import { python, pythonClientDir, runCommand } from './run-python.js';

// Issue #37 (7, 12): the README shows the Python quickstart the documentation shows, with the virtual environment
// Debian's python3 needs (PEP 668), and it works as pasted: the client is installed with pip into a fresh venv made
// by Debian's python3 (offline, as the README says), and the README's own text runs with that venv's python from a
// folder outside the checkout, so it is the installed package that answers, not the sources.

const readme = readFileSync(join(pythonClientDir, '..', '..', 'README.md'), 'utf8');
const section = readme.slice(
  readme.indexOf('## Client libraries'),
  readme.indexOf('\n## ', readme.indexOf('## Client libraries') + 1),
);
const block = (language: string) => {
  const found = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(section);
  assert.ok(found, `README's Client libraries section has no ${language} block`);
  return found[1]!;
};

let server: TestServer;
let dir: string;

const run = (command: string, args: readonly string[], cwd: string, env: Record<string, string> = {}) =>
  runCommand(command, args, { cwd, env });

before(async () => {
  server = await startTestServer();
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  dir = mkdtempSync(join(tmpdir(), 'godb-readme-python-'));
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

test('issue 37: the README shows the documentation’s Python install and quickstart, the install once', () => {
  assert.equal(block('sh').trimEnd(), pythonInstall);
  assert.equal(block('python'), pythonQuickstart);
  assert.match(pythonInstall, /^python3 -m venv \.venv$/m);
  assert.equal(pythonInstall.match(/^pip install \.\/clients\/python$/gm)?.length, 1);
  assert.doesNotMatch(pythonQuickstart, /pip install/);
});

test('issue 37: the README’s Python quickstart runs as pasted in a fresh venv with the client installed by pip', async () => {
  // A copy of the client, so pip's build leaves nothing in the checkout.
  const source = join(dir, 'clients', 'python');
  for (const entry of ['pyproject.toml', 'README.md', 'godb'])
    cpSync(join(pythonClientDir, entry), join(source, entry), { recursive: true });
  // The README's offline lines, as written: this machine has no package index.
  const offline = [...pythonInstall.matchAll(/^# {3}(.*)$/gm)].map((line) => line[1]!);
  assert.deepEqual(offline, [
    'python3 -m venv --system-site-packages .venv && . .venv/bin/activate',
    'pip install --no-build-isolation --no-index ./clients/python',
  ]);
  const venv = join(dir, '.venv');
  const made = await run(python, ['-m', 'venv', '--system-site-packages', venv], dir);
  assert.equal(made.code, 0, made.stderr);
  const installed = await run(join(venv, 'bin', 'pip'), offline[1]!.split(' ').slice(1), dir);
  assert.equal(installed.code, 0, installed.stdout + installed.stderr);

  const script = join(dir, 'quickstart.py');
  writeFileSync(script, block('python'));
  const address = server.app.server.address();
  assert.ok(address && typeof address === 'object');
  const ran = await run(join(venv, 'bin', 'python'), ['quickstart.py'], dir, {
    GODB_URL: `http://127.0.0.1:${address.port}`,
    PYTHONDONTWRITEBYTECODE: '1',
  });
  assert.equal(ran.code, 0, ran.stderr);
  assert.match(ran.stdout, /^100 imported, 0 failed$/m);
  assert.match(ran.stdout, /^red-shoe [\d.]+ Red running shoe$/m);
  assert.match(ran.stdout, /^404 NOT_FOUND [0-9a-f-]{36}$/m);
  // The package answering is the venv's copy.
  const where = await run(join(venv, 'bin', 'python'), ['-c', 'import godb; print(godb.__file__)'], dir);
  assert.ok(where.stdout.startsWith(venv), where.stdout);
});
