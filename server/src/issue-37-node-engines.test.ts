import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Issue #37 (12): the README names every installed package whose `engines` exclude GoDB's own minimum Node (the
// EBADENGINE warnings of `npm install` on Node 20), so the requirement it states stays true when dependencies move.
// docs/decisions/0007-node-20-engines.md says why they are named rather than pinned back.

const root = new URL('../../', import.meta.url);
const read = (name: string) => readFileSync(fileURLToPath(new URL(name, root)), 'utf8');

type Version = readonly [number, number, number];
const parse = (text: string): Version => {
  const [major = 0, minor = 0, patch = 0] = text.split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : 0));
  return [major, minor, patch];
};
const compare = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** Whether `version` satisfies an npm `engines` range of the forms packages use (>=, >, <, <=, ^, ~, x, ||). */
function admits(range: string, version: Version): boolean {
  return range.split('||').some((alternative) =>
    alternative
      .trim()
      .replace(/(>=|<=|>|<|\^|~|=)\s+/g, '$1')
      .split(/\s+/)
      .filter(Boolean)
      .every((comparator) => {
        const [, op = '', text = ''] = /^(>=|<=|>|<|\^|~|=)?v?(.*)$/.exec(comparator) ?? [];
        if (text === '*' || text === 'x') return true;
        const bound = parse(text);
        const c = compare(version, bound);
        const parts = text.split('.').filter((p) => /^\d+$/.test(p)).length;
        switch (op) {
          case '>=':
            return c >= 0;
          case '>':
            return c > 0;
          case '<':
            return c < 0;
          case '<=':
            return c <= 0;
          case '^':
            return c >= 0 && version[0] === bound[0];
          case '~':
            return c >= 0 && version[0] === bound[0] && version[1] === bound[1];
          default:
            return version.slice(0, parts).every((n, i) => n === bound[i]);
        }
      }),
  );
}

test('the engines check reads ranges as npm does', () => {
  const v = parse('20.19.0');
  assert.equal(admits('>= 22.x', v), false);
  assert.equal(admits('>=22', v), false);
  assert.equal(admits('>=18', v), true);
  assert.equal(admits('^18.18.0 || ^20.9.0 || >=21.1.0', v), true);
  assert.equal(admits('>=14.0.0 <20', v), false);
  assert.equal(admits('20 || 22', v), true);
});

test('issue 37: the README names exactly the installed packages whose engines exclude GoDB’s minimum Node', () => {
  const minimum = /^>=(\d+\.\d+(?:\.\d+)?)$/.exec(
    (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node,
  )?.[1];
  assert.ok(minimum, 'package.json engines.node is a plain >= bound');
  const lock = JSON.parse(read('package-lock.json')) as {
    packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
  };
  const excluding = Object.entries(lock.packages)
    .filter(([path, entry]) => {
      const node = !Array.isArray(entry.engines) ? entry.engines?.node : undefined;
      return path.includes('node_modules/') && node !== undefined && !admits(node, parse(minimum));
    })
    .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
  const readme = read('README.md');
  const named = /three\s+`EBADENGINE` warnings, for ([^(]+)\(/.exec(readme)?.[1];
  assert.ok(named, 'the README names the EBADENGINE warnings');
  assert.deepEqual([...new Set(excluding)].sort(), [...named.matchAll(/`([^`]+)`/g)].map((m) => m[1]).sort());
  assert.match(readme, new RegExp(`Node\\.js ${minimum.replace('.', '\\.')} or later`));
});
