// Writes godb/_operations.py, the Python client's table of operations (verb, path, parameters, body kind), from
// the catalogue, so the client cannot drift from the server: `npm run generate:python`. The drift test
// (python-drift.test.ts) fails when the checked-in table differs from what this renders.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { operations, type CatalogueOperation } from '@godb/contract';

export const operationsModule = fileURLToPath(new URL('../godb/_operations.py', import.meta.url));

const py = (value: string) => JSON.stringify(value);
const tuple = (values: readonly string[]) =>
  values.length === 0 ? '()' : `(${values.map(py).join(', ')}${values.length === 1 ? ',' : ''})`;

function bodyKind(operation: CatalogueOperation): string {
  if (operation.ndjson) return py('ndjson');
  return operation.body ? py('json') : 'None';
}

/** The Python source of godb/_operations.py for a catalogue. */
export function renderOperations(catalogue: readonly CatalogueOperation[] = operations): string {
  const rows = catalogue.map((operation) =>
    [
      `    ${py(operation.id)}: Operation(`,
      `        id=${py(operation.id)},`,
      `        category=${py(operation.category)},`,
      `        method=${py(operation.http.method)},`,
      `        path=${py(operation.http.path)},`,
      `        path_params=${tuple(operation.params ? Object.keys(operation.params.properties) : [])},`,
      `        query_params=${tuple(operation.query ? Object.keys(operation.query.properties) : [])},`,
      `        body=${bodyKind(operation)},`,
      `        access=${py(operation.access)},`,
      `        summary=${py(operation.summary)},`,
      `    ),`,
    ].join('\n'),
  );
  return [
    '# Generated from the GoDB catalogue (contract/src/operations) by clients/python/scripts/generate.ts.',
    '# Do not edit: run `npm run generate:python`. A drift test fails when this file is stale.',
    '"""Every operation of the GoDB API: HTTP verb, path, parameters and body kind."""',
    '',
    'from typing import Dict, Optional, Tuple',
    '',
    '',
    'class Operation:',
    '    """One operation of the catalogue, as the client sends it."""',
    '',
    '    __slots__ = ("id", "category", "method", "path", "path_params", "query_params", "body", "access", "summary")',
    '',
    '    def __init__(',
    '        self,',
    '        id: str,',
    '        category: str,',
    '        method: str,',
    '        path: str,',
    '        path_params: Tuple[str, ...],',
    '        query_params: Tuple[str, ...],',
    '        body: Optional[str],',
    '        access: str,',
    '        summary: str,',
    '    ) -> None:',
    '        self.id = id',
    '        self.category = category',
    '        self.method = method',
    '        self.path = path',
    '        self.path_params = path_params',
    '        self.query_params = query_params',
    '        self.body = body',
    '        self.access = access',
    '        self.summary = summary',
    '',
    '    def __repr__(self) -> str:',
    '        return "Operation(%r, %s %s)" % (self.id, self.method, self.path)',
    '',
    '',
    'OPERATIONS: Dict[str, Operation] = {',
    ...rows,
    '}',
    '',
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(operationsModule, renderOperations());
  process.stdout.write(`wrote ${operationsModule} (${operations.length} operations)\n`);
}
