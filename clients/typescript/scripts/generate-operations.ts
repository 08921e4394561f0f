/**
 * Writes src/operations.generated.ts: what the client needs at run time from the contract's catalogue (each
 * operation's method name, HTTP method, path, query keys, body kind, retry class and defaulted fields) and the
 * client messages. The contract's types are used at compile time only; this table is its run-time part, so the
 * published client carries no dependency. `operations.test.ts` regenerates it and fails when it is stale.
 *
 *   npm run generate -w @godb/client
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderOperationTable } from './operation-table.js';

const target = fileURLToPath(new URL('../src/operations.generated.ts', import.meta.url));
writeFileSync(target, await renderOperationTable());
process.stdout.write(`wrote ${target}\n`);
