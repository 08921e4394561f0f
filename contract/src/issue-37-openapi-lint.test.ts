import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { operations } from './catalogue.js';
import { buildOpenApi, documentLicense } from './openapi.js';

// Issue #37: the OpenAPI document is read by third-party tools (Redocly, client generators), which read OpenAPI 3.1
// with JSON Schema 2020-12. A standard linter with its recommended rules finds nothing in it, and every example it
// shows is valid against its schema.

type Json = Record<string, unknown>;
const addFormats = addFormatsModule.default;
const doc = buildOpenApi(operations, { version: '0.1.0' });

interface Problem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { pointer: string }[];
}

test('Redocly lint with the recommended rules finds no error and no warning in the document', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'godb-openapi-lint-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc, null, 2));
    const cli = join(dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin/cli.js');
    // Run in an empty folder (no redocly.yaml is picked up), offline: no telemetry, no update check.
    const run = await promisify(execFile)(
      process.execPath,
      [cli, 'lint', '--extends=recommended', '--format=json', '--max-problems=1000', file],
      {
        cwd: dir,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
        maxBuffer: 64 * 1024 * 1024,
      },
    ).catch((error: { stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? '', stderr: error.stderr }));
    let report: { totals: { errors: number; warnings: number }; problems: Problem[] };
    try {
      report = JSON.parse(run.stdout) as typeof report;
    } catch {
      assert.fail(`redocly printed no JSON report: ${run.stdout}\n${String(run.stderr)}`);
    }
    const listed = report.problems
      .map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`)
      .join('\n');
    assert.equal(report.totals.errors, 0, `Redocly errors:\n${listed}`);
    assert.equal(report.totals.warnings, 0, `Redocly warnings:\n${listed}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Every `examples` entry of a media type in the document, with the JSON pointer of its schema. */
function* mediaExamples(): Generator<{ where: string; schemaPointer: string; value: unknown }> {
  const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');
  const medias = function* (content: unknown, pointer: string): Generator<[string, Json]> {
    for (const [type, media] of Object.entries((content ?? {}) as Record<string, Json>)) {
      yield [`${pointer}/content/${escape(type)}`, media];
    }
  };
  for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    for (const [method, entry] of Object.entries(methods)) {
      const at = `#/paths/${escape(path)}/${method}`;
      const sites = [...medias((entry.requestBody as Json | undefined)?.content, `${at}/requestBody`)];
      for (const [status, response] of Object.entries(entry.responses as Record<string, Json>)) {
        sites.push(...medias(response.content, `${at}/responses/${status}`));
      }
      for (const [pointer, media] of sites) {
        for (const [name, example] of Object.entries((media.examples ?? {}) as Record<string, { value: unknown }>)) {
          yield {
            where: `${method.toUpperCase()} ${path} ${pointer} ${name}`,
            schemaPointer: `${pointer}/schema`,
            value: example.value,
          };
        }
      }
    }
  }
}

test('every example of the document is valid against its schema, read as JSON Schema 2020-12', () => {
  // The document itself is the schema store: examples are checked against the schemas it publishes, references
  // and all, exactly as a 2020-12 validator reads them (strict off: OpenAPI's own keywords are not JSON Schema's).
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  const id = 'https://godb.invalid/openapi.json';
  ajv.addSchema({ ...doc, $id: id });
  const examples = [...mediaExamples()];
  assert.ok(examples.length >= 100, `${examples.length} examples`);
  const invalid: string[] = [];
  for (const { where, schemaPointer, value } of examples) {
    let validate;
    try {
      validate = ajv.compile({ $ref: `${id}${schemaPointer}` });
    } catch (error) {
      // A schema that is not 2020-12 (a draft-07 tuple: `items` as a list) does not compile.
      invalid.push(`${where}: ${(error as Error).message}`);
      continue;
    }
    if (!validate(structuredClone(value))) invalid.push(`${where}: ${ajv.errorsText(validate.errors)}`);
  }
  assert.deepEqual(invalid, []);
  // The five examples issue #37 found invalid (a draft-07 tuple as `location`) are among those checked.
  const checked = examples.map((e) => e.where).join('\n');
  for (const route of [
    'POST /api/v1/documents ',
    'POST /api/v1/documents/batch ',
    'GET /api/v1/documents/{id} ',
    'PATCH /api/v1/documents/{id} ',
    'POST /api/v1/documents/scroll ',
  ]) {
    assert.ok(checked.includes(route), route);
  }
});

test('a tuple is published as prefixItems, and no schema of the document uses draft-07 tuple keywords', () => {
  const text = JSON.stringify(doc);
  assert.doesNotMatch(text, /"additionalItems"/);
  const stored = (doc.components as { schemas: Record<string, { properties: Record<string, Json> }> }).schemas
    .StoredDocument;
  assert.deepEqual(
    { prefixItems: stored?.properties.location?.prefixItems, items: stored?.properties.location?.items },
    {
      prefixItems: [
        { minimum: -90, maximum: 90, type: 'number' },
        { minimum: -180, maximum: 180, type: 'number' },
      ],
      items: false,
    },
  );
  for (const [, methods] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    for (const entry of Object.values(methods)) {
      const content = (entry.requestBody as Json | undefined)?.content as Record<string, Json> | undefined;
      // OpenAPI 3.2's itemSchema is an extension in this 3.1 document.
      for (const media of Object.values(content ?? {})) assert.equal(media.itemSchema, undefined);
    }
  }
});

test('public operations say they need no credential, the rest which they take; servers and licence are declared', () => {
  for (const operation of operations) {
    const entry = (doc.paths as Record<string, Record<string, Json>>)[operation.http.path]?.[
      operation.http.method.toLowerCase()
    ];
    const expected = operation.access === 'public' ? [] : [{ bearerAuth: [] }, { apiKeyAuth: [] }];
    assert.deepEqual(entry?.security, expected, operation.id);
  }
  assert.deepEqual(
    operations
      .filter((o) => o.access === 'public')
      .map((o) => o.id)
      .sort(),
    ['download-release', 'login', 'register', 'send-email', 'send-mail'],
  );
  assert.deepEqual(doc.servers, [{ url: '/' }]);
  assert.deepEqual((doc.info as Json).license, documentLicense);
  // The licence stated is the project's: a change of package.json's licence has to change the document's too.
  const root = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { license: string };
  assert.equal(root.license, 'UNLICENSED');
});

test('vector and hybrid search publish the query vector with a type: numbers, or their JSON text', () => {
  const schemas = (doc.components as { schemas: Record<string, { properties: Record<string, Json> }> }).schemas;
  for (const name of ['VectorSearchRequest', 'HybridSearchRequest']) {
    const vector = schemas[name]?.properties.vector;
    assert.deepEqual(
      (vector?.anyOf as Json[] | undefined)?.map((v) => [v.type, (v.items as Json | undefined)?.type]),
      [
        ['array', 'number'],
        ['string', undefined],
      ],
      name,
    );
  }
});
