// @ts-check
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * Import direction (../shared/conventions.md §1): contract imports nothing of ours; the engine only contract;
 * the service engine + contract; each transport service + contract and never the other transport; the web only
 * contract, and inside the web, features do not import each other.
 */
const restrict = (patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });
const group = (group, message) => ({ group, message });

/**
 * SQL outside a store: a statement in a string or template, or SQL text handed to a connection (`prepare`, `exec`,
 * `pragma` with a string: `documents.prepare(viewer, …)` and `regex.exec(id)` are not SQL).
 */
const sqlMessage =
  'SQL lives in stores (issue #21): add a typed function to the store of its domain (e.g. engine/documents/document-store.ts, access/search-rows.ts, text/fts-rows.ts, snapshots/restore-rows.ts; see ARCHITECTURE.md) and call it';
const sqlPattern = String.raw`/\b(SELECT|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+(VIRTUAL\s+)?(TABLE|INDEX|TRIGGER)|DROP\s+TABLE|ATTACH\s+DATABASE|DETACH\s+DATABASE|PRAGMA|json_each)\b/`;
const sqlOutsideStores = [
  { selector: `Literal[value=${sqlPattern}]`, message: sqlMessage },
  { selector: `TemplateElement[value.raw=${sqlPattern}]`, message: sqlMessage },
  {
    selector:
      'CallExpression[callee.property.name=/^(prepare|exec|pragma)$/][arguments.0.type=/^(Literal|TemplateLiteral)$/]',
    message: sqlMessage,
  },
];

/**
 * The store modules: each owns the SQL of its domain (issue #21), with storage/ (connection, migrations, statement
 * cache, transactions). Everything else in the engine, the log adapter and the service calls their typed functions.
 */
const storeModules = [
  'server/src/engine/storage/**',
  'server/src/engine/operations/adopted-snapshot-rows.ts',
  'server/src/engine/operations/applied-rows.ts',
  'server/src/engine/operations/fence-rows.ts',
  'server/src/engine/collections/collection-rows.ts',
  'server/src/engine/directory/api-key-store.ts',
  'server/src/engine/directory/directory.ts',
  'server/src/engine/documents/document-store.ts',
  'server/src/engine/documents/engagement-store.ts',
  'server/src/engine/documents/maintenance-rows.ts',
  'server/src/engine/field-indexes/field-index-rows.ts',
  'server/src/engine/sparse/sparse-posting-rows.ts',
  'server/src/engine/vectors/removal-log.ts',
  'server/src/engine/access/search-rows.ts',
  'server/src/engine/vectors/space-vectors.ts',
  'server/src/engine/files/file-deletions.ts',
  'server/src/engine/jobs/job-store.ts',
  'server/src/engine/mail/outbox.ts',
  'server/src/engine/snapshots/restore-rows.ts',
  'server/src/engine/snapshots/snapshot-rows.ts',
  'server/src/engine/snapshots/tenant-rows.ts',
  'server/src/engine/text/fts-rows.ts',
  'server/src/engine/text/fts-tables.ts',
  'server/src/engine/text/text-checkpoint-rows.ts',
];

/** What every engine file may not import: the engine knows no transport, service or config. */
const engineOutside = group(
  ['**/service/**', '**/transport/**', '**/config/**', 'fastify', '@fastify/*', '@grpc/*'],
  'the engine knows no transport, service or config',
);

/**
 * The engine's folders in layers, lowest first (ARCHITECTURE.md "Layers"): a folder imports only folders of lower
 * layers (the search folders call each other), so the operations applier, on top, is the only one that knows them all
 * and nothing below reaches back up into it.
 */
const engineLayers = [
  ['storage'],
  ['access', 'files', 'directory', 'jobs', 'mail'],
  ['text', 'collections', 'field-indexes'],
  ['embeddings', 'vectors'],
  ['documents', 'snapshots'],
  ['search', 'graph', 'recommend'],
  ['operations'],
];
const engineFolderRules = engineLayers.flatMap((layer, rank) =>
  layer.map((folder) => ({
    files: [`server/src/engine/${folder}/**/*.ts`],
    // Tests may drive a part through the layers above it (a write, then a search).
    ignores: ['**/*.test.ts'],
    rules: restrict([
      engineOutside,
      ...engineLayers
        .slice(rank + 1)
        .flat()
        .map((above) =>
          group([`../${above}/**`], `engine/${folder} is below engine/${above}: move the shared part down instead`),
        ),
    ]),
  })),
);

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', 'data/**', 'release/**', 'e2e/screenshots/**', 'bench/results/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-throw-literal': 'error',
    },
  },
  {
    files: ['contract/src/**/*.ts'],
    rules: restrict([
      group(['@godb/server', '@godb/web', '**/server/**', '**/web/**'], 'contract imports nothing of ours'),
    ]),
  },
  {
    files: ['server/src/engine/**/*.ts'],
    rules: {
      // Numeric kernels index typed arrays inside loops that bound the index; with noUncheckedIndexedAccess that
      // needs `!`. Outside the engine the rule stays on.
      '@typescript-eslint/no-non-null-assertion': 'off',
      ...restrict([engineOutside]),
      'no-restricted-globals': [
        'error',
        { name: 'setTimeout', message: 'inject a clock or scheduler into the engine' },
        { name: 'setInterval', message: 'inject a scheduler into the engine' },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'use the injected Clock' },
        { object: 'process', property: 'env', message: 'the engine gets its settings as arguments' },
      ],
    },
  },
  ...engineFolderRules,
  {
    // Stores own SQL (issue #21): the engine (ranking, writes, snapshots, indexes), the log adapter and the service
    // call a store's typed functions, never SQL. Tests may read rows to check what a user cannot see.
    files: ['server/src/engine/**/*.ts', 'server/src/cluster/**/*.ts', 'server/src/service/**/*.ts'],
    ignores: [...storeModules, '**/*.test.ts', '**/test-support/**'],
    rules: {
      'no-restricted-syntax': ['error', ...sqlOutsideStores],
    },
  },
  {
    files: ['server/src/service/**/*.ts'],
    rules: restrict([
      group(['**/transport/**', 'fastify', '@fastify/*', '@grpc/*'], 'services are shared by every transport'),
    ]),
  },
  {
    // The replicated log's adapter: it applies operations through the engine and is composed in compose/.
    files: ['server/src/cluster/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: restrict([
      group(
        ['**/service/**', '**/transport/**', 'fastify', '@fastify/*', '@grpc/*'],
        'the log adapter knows no service or transport',
      ),
    ]),
  },
  {
    files: ['server/src/transport/http/**/*.ts'],
    rules: restrict([group(['**/transport/grpc/**', '@grpc/*'], 'a transport never imports the other transport')]),
  },
  {
    files: ['server/src/transport/grpc/**/*.ts'],
    rules: restrict([
      group(['**/transport/http/**', 'fastify', '@fastify/*'], 'a transport never imports the other transport'),
    ]),
  },
  {
    // The client libraries ship alone: the contract's types at compile time only (its run-time part is the generated
    // table), and nothing of the server or the web.
    files: [
      'clients/typescript/src/**/*.ts',
      'integrations/langchain/src/**/*.ts',
      'integrations/llamaindex/src/**/*.ts',
    ],
    ignores: ['**/*.test.ts', '**/test-support/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['@godb/contract', '@sinclair/typebox'].map((name) => ({
            name,
            allowTypeImports: true,
            message: 'clients use the contract for types only: regenerate operations.generated.ts for data',
          })),
          patterns: [group(['@godb/server', '@godb/web', '**/server/**', '**/web/**'], 'clients ship without them')],
        },
      ],
    },
  },
  {
    files: ['web/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      ...restrict([group(['@godb/server', '**/server/**'], 'the web imports the contract, never the server')]),
    },
  },
  {
    files: ['web/src/components/**/*.{ts,tsx}', 'web/src/lib/**/*.{ts,tsx}', 'web/src/config/**/*.{ts,tsx}'],
    rules: restrict([
      group(['@godb/server', '**/server/**'], 'the web imports the contract, never the server'),
      group(['**/features/**', '**/app/**'], 'shared code does not import features or the app'),
    ]),
  },
  ...['marketing', 'docs', 'api-reference', 'whitepaper', 'contact', 'auth', 'playground', 'report-issue', 'legal'].map(
    (feature) => ({
      files: [`web/src/features/${feature}/**/*.{ts,tsx}`],
      rules: restrict([
        group(['@godb/server', '**/server/**'], 'the web imports the contract, never the server'),
        group(['**/app/**'], 'features do not import the app'),
        group(
          ['marketing', 'docs', 'api-reference', 'whitepaper', 'contact', 'auth', 'playground', 'report-issue', 'legal']
            .filter((other) => other !== feature)
            .map((other) => `**/features/${other}/**`)
            .concat(
              [
                'marketing',
                'docs',
                'api-reference',
                'whitepaper',
                'contact',
                'auth',
                'playground',
                'report-issue',
                'legal',
              ]
                .filter((o) => o !== feature)
                .map((o) => `../${o}/**`),
            ),
          'features do not import each other: move shared code to components/ or lib/',
        ),
      ]),
    }),
  ),
  {
    files: ['**/*.test.ts', '**/*.test.tsx', '**/test-support/**', 'e2e/**', 'bench/**', 'scripts/**'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
