// Writes godb/_operations.py, the Python client's table of operations (verb, path, parameters, body kind, answer
// type), and godb/types.py, a TypedDict per named schema of the OpenAPI document, from the catalogue, so the client
// cannot drift from the server: `npm run generate:python`. The drift test (python-drift.test.ts) fails when the
// checked-in files differ from what this renders.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildOpenApi, operations, type CatalogueOperation } from '@godb/contract';

export const operationsModule = fileURLToPath(new URL('../godb/_operations.py', import.meta.url));
export const typesModule = fileURLToPath(new URL('../godb/types.py', import.meta.url));

type Schema = { readonly [key: string]: unknown };
const documents = new WeakMap<readonly CatalogueOperation[], OpenApi>();
const openApiOf = (catalogue: readonly CatalogueOperation[]): OpenApi => {
  const known = documents.get(catalogue);
  if (known) return known;
  const document = buildOpenApi(catalogue, { version: '0' }) as OpenApi;
  documents.set(catalogue, document);
  return document;
};
type OpenApi = {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema?: Schema }> }> }>
  >;
  components: { schemas: Record<string, Schema> };
};

/** The named schema (component) of an operation's answer, when it has one answer and that is a component. */
export function responseComponent(operation: CatalogueOperation, catalogue = operations): string | undefined {
  if (operation.alternatives?.length) return undefined;
  const entry = openApiOf(catalogue).paths[operation.http.path]?.[operation.http.method.toLowerCase()];
  const schema = entry?.responses[String(operation.success.status)]?.content?.['application/json']?.schema;
  return typeof schema?.$ref === 'string' ? schema.$ref.split('/').pop() : undefined;
}

const py = (value: string) => JSON.stringify(value);
const tuple = (values: readonly string[]) =>
  values.length === 0 ? '()' : `(${values.map(py).join(', ')}${values.length === 1 ? ',' : ''})`;

function bodyKind(operation: CatalogueOperation): string {
  if (operation.ndjson) return py('ndjson');
  return operation.body ? py('json') : 'None';
}

/** The Python source of godb/_operations.py for a catalogue. */
export function renderOperations(catalogue: readonly CatalogueOperation[] = operations): string {
  const responses = new Map(catalogue.map((o) => [o.id, responseComponent(o, catalogue)]));
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
      `        response=${responses.get(operation.id) ? py(responses.get(operation.id) ?? '') : 'None'},`,
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
    '    __slots__ = (',
    '        "id",',
    '        "category",',
    '        "method",',
    '        "path",',
    '        "path_params",',
    '        "query_params",',
    '        "body",',
    '        "access",',
    '        "summary",',
    '        "response",',
    '    )',
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
    '        response: Optional[str],',
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
    '        #: The godb.types TypedDict of the answer, when the answer is one named schema.',
    '        self.response = response',
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

const pythonKeywords = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
);
const isIdentifier = (name: string) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !pythonKeywords.has(name);

function unionOf(types: readonly string[]): string {
  const unique = [...new Set(types)];
  if (unique.includes('Any')) return 'Any';
  return unique.length === 1 ? (unique[0] ?? 'Any') : `Union[${unique.join(', ')}]`;
}

/** The Python type of a JSON schema: components by (quoted) name, inline objects as dicts. */
export function pythonType(schema: Schema | undefined): string {
  if (!schema) return 'Any';
  if (typeof schema.$ref === 'string') return py(schema.$ref.split('/').pop() ?? 'Any');
  if ('const' in schema)
    return `Literal[${py(String(schema.const))}]`.replace(
      /^Literal\["(true|false)"\]$/,
      (_, b: string) => `Literal[${b === 'true' ? 'True' : 'False'}]`,
    );
  if (Array.isArray(schema.enum))
    return `Literal[${schema.enum.map((v) => (typeof v === 'string' ? py(v) : String(v))).join(', ')}]`;
  const union = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(union)) return unionOf(union.map(pythonType));
  if (Array.isArray(schema.allOf)) return pythonType(schema.allOf[0] as Schema | undefined);
  if (Array.isArray(schema.type)) return unionOf(schema.type.map((type: unknown) => pythonType({ type })));
  switch (schema.type) {
    case 'string':
      return 'str';
    case 'integer':
      return 'int';
    case 'number':
      return 'float';
    case 'boolean':
      return 'bool';
    case 'null':
      return 'None';
    case 'array':
      return `List[${pythonType(schema.items as Schema | undefined)}]`;
    case 'object': {
      const patterns = Object.values((schema.patternProperties ?? {}) as Record<string, Schema>);
      if (patterns.length === 1) return `Dict[str, ${pythonType(patterns[0])}]`;
      if (typeof schema.additionalProperties === 'object') {
        return `Dict[str, ${pythonType(schema.additionalProperties as Schema)}]`;
      }
      return 'Dict[str, Any]';
    }
    default:
      return 'Any';
  }
}

const docstring = (text: unknown) =>
  typeof text === 'string' && text ? [`    ${py(text.replace(/\s+/g, ' ')).replace(/^"|"$/g, '"""')}`] : [];

function renderComponent(name: string, schema: Schema): string[] {
  const properties = schema.properties as Record<string, Schema> | undefined;
  if (schema.type !== 'object' || !properties) return [`${name} = ${pythonType(schema)}`];
  const required = new Set((schema.required ?? []) as string[]);
  const fields = Object.entries(properties);
  const line = ([field, value]: [string, Schema]) => `    ${field}: ${pythonType(value)}`;
  if (!fields.every(([field]) => isIdentifier(field))) {
    // Names Python cannot spell as attributes: the functional form, every key optional.
    const entries = fields.map(([field, value]) => `    ${py(field)}: ${pythonType(value)},`);
    return [`${name} = TypedDict(${py(name)}, {`, ...entries, '}, total=False)'];
  }
  const must = fields.filter(([field]) => required.has(field));
  const may = fields.filter(([field]) => !required.has(field));
  if (may.length === 0) return [`class ${name}(TypedDict):`, ...docstring(schema.description), ...must.map(line)];
  if (must.length === 0) {
    return [`class ${name}(TypedDict, total=False):`, ...docstring(schema.description), ...may.map(line)];
  }
  return [
    `class _${name}Required(TypedDict):`,
    ...must.map(line),
    '',
    '',
    `class ${name}(_${name}Required, total=False):`,
    ...docstring(schema.description),
    ...may.map(line),
  ];
}

/** The Python source of godb/types.py: one TypedDict (or alias) per component of the OpenAPI document. */
export function renderTypes(catalogue: readonly CatalogueOperation[] = operations): string {
  const schemas = openApiOf(catalogue).components.schemas;
  const blocks = Object.keys(schemas)
    .sort()
    .map((name) => renderComponent(name, schemas[name] ?? {}).join('\n'));
  return [
    '# Generated from the GoDB OpenAPI document (contract/src/openapi-components.ts) by',
    '# clients/python/scripts/generate.ts. Do not edit: run `npm run generate:python`. A drift test fails when stale.',
    '"""The named schemas of the GoDB API as TypedDicts: what the client\'s methods answer and accept."""',
    '',
    'from typing import Any, Dict, List, Literal, TypedDict, Union',
    '',
    '',
    blocks.join('\n\n\n'),
    '',
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(operationsModule, renderOperations());
  writeFileSync(typesModule, renderTypes());
  process.stdout.write(`wrote ${operationsModule} (${operations.length} operations) and ${typesModule}\n`);
}
