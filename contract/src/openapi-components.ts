import { Kind, type TSchema } from '@sinclair/typebox';
import * as auth from './schemas/auth.js';
import * as cluster from './schemas/cluster.js';
import * as collection from './schemas/collection.js';
import * as common from './schemas/common.js';
import * as document from './schemas/document.js';
import * as documentScan from './schemas/document-scan.js';
import * as embedding from './schemas/embedding.js';
import * as graph from './schemas/graph.js';
import * as mail from './schemas/mail.js';
import * as query from './schemas/query.js';
import * as search from './schemas/search.js';
import * as sparse from './schemas/sparse.js';

type Json = Record<string, unknown>;
/** Where a schema is used: a request body (what the caller sends) or an answer. */
export type SchemaView = 'request' | 'response';

/**
 * Every module of shared schemas (contract/src/schemas/). Their exported object schemas become named OpenAPI
 * components, named by their export; a test fails when a module of that folder is missing here.
 */
export const schemaModules: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  auth,
  cluster,
  collection,
  common,
  document,
  'document-scan': documentScan,
  embedding,
  graph,
  mail,
  query,
  search,
  sparse,
};

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null;

/** Keywords whose values are data (defaults, examples, allowed values), not schemas to look into. */
const dataKeywords = new Set(['default', 'examples', 'example', 'enum', 'const']);

/** An object schema worth naming: one with properties (not a bare `{type: 'object'}`). */
const isNameable = (node: Json) =>
  node.type === 'object' && isObject(node.properties) && Object.keys(node.properties).length > 0;

/** JSON with sorted keys, so equal schemas compare equal whatever order their keywords were written in. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (!isObject(value)) return JSON.stringify(value);
  return `{${Object.keys(value)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
    .join(',')}}`;
}

/** Applies `visit` to every schema under `node` (not to `node` itself), leaving data keywords alone. */
function mapChildren(node: unknown, visit: (child: unknown) => unknown): unknown {
  if (Array.isArray(node)) return node.map(visit);
  if (!isObject(node)) return node;
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, dataKeywords.has(k) ? v : visit(v)]));
}

export interface NamedSchema {
  readonly name: string;
  /** The schema as answers show it, and as a request body shows it (see `callerView`). */
  readonly views: Readonly<Record<SchemaView, Json>>;
}

/**
 * The shared object schemas of the contract, each under its export name, in both views. When two exports are equal,
 * the first (by module, then export order) names them: a catalogue test keeps them distinct.
 */
export function namedSchemas(toJson: (schema: TSchema) => Json, callerView: (schema: TSchema) => Json): NamedSchema[] {
  const named: NamedSchema[] = [];
  for (const module of Object.values(schemaModules)) {
    for (const [name, value] of Object.entries(module)) {
      if (!isObject(value) || !(Kind in value)) continue;
      const schema = value as TSchema;
      const plain = toJson(schema);
      if (isNameable(plain)) named.push({ name, views: { response: plain, request: callerView(schema) } });
    }
  }
  return named;
}

/** A schema of the document, with the view it is read in. */
export interface SchemaSite {
  readonly schema: Json;
  readonly view: SchemaView;
  /** Puts the schema with its components referenced in place of the original. */
  readonly replace: (schema: Json) => void;
}

/**
 * Turns every occurrence of a named schema (equal to one of `named` in its view) into a `$ref` to a component of
 * that name, and answers the components. A schema used by requests and answers alike is one component; when its
 * request view differs (a field with a default is optional to send), that view is a second one, `<Name>Input`.
 */
export function extractComponents(named: readonly NamedSchema[], sites: readonly SchemaSite[]): Record<string, Json> {
  const index: Record<SchemaView, Map<string, NamedSchema>> = { request: new Map(), response: new Map() };
  for (const schema of named) {
    for (const view of ['request', 'response'] as const) {
      const key = canonical(schema.views[view]);
      if (!index[view].has(key)) index[view].set(key, schema);
    }
  }
  const match = (node: unknown, view: SchemaView): NamedSchema | undefined =>
    isObject(node) && isNameable(node) ? index[view].get(canonical(node)) : undefined;

  // First pass: which views of which named schemas the document uses.
  const used = new Map<NamedSchema, Set<SchemaView>>();
  const collect = (node: unknown, view: SchemaView): void => {
    const found = match(node, view);
    if (found) used.set(found, (used.get(found) ?? new Set()).add(view));
    mapChildren(node, (child) => collect(child, view));
  };
  for (const site of sites) collect(site.schema, site.view);

  const nameOf = (schema: NamedSchema, view: SchemaView): string => {
    const views = used.get(schema);
    const split =
      views?.size === 2 && canonical(schema.views.request) !== canonical(schema.views.response) && view === 'request';
    return split ? `${schema.name}Input` : schema.name;
  };

  // Second pass: references in place of named schemas, and each component once, itself with references.
  const components: Record<string, Json> = {};
  const refer = (node: unknown, view: SchemaView): unknown => {
    const found = match(node, view);
    if (!found) return mapChildren(node, (child) => refer(child, view));
    const name = nameOf(found, view);
    if (!(name in components)) {
      components[name] = {}; // reserved first: a schema that contains itself stops here
      components[name] = mapChildren(found.views[view], (child) => refer(child, view)) as Json;
    }
    return { $ref: `#/components/schemas/${name}` };
  };
  for (const site of sites) site.replace(refer(site.schema, site.view) as Json);
  return components;
}

/**
 * The document with every `#/components/schemas/…` (and `#/components/parameters/…`, `#/components/headers/…`)
 * reference replaced by its target: what a reader without `$ref` support sees, and what the drift test compares with
 * the catalogue.
 */
export function dereference<T>(document: T): T {
  const components = ((document as Json).components ?? {}) as Record<string, Record<string, Json> | undefined>;
  const inline = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(inline);
    if (!isObject(node)) return node;
    const ref = node.$ref;
    const [, kind, name] =
      typeof ref === 'string' ? (/^#\/components\/(schemas|parameters|headers)\/(.+)$/.exec(ref) ?? []) : [];
    if (kind !== undefined && name !== undefined) {
      const target = components[kind]?.[name];
      if (!target) throw new TypeError(`unresolved reference ${String(ref)}`);
      return inline(target);
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inline(v)]));
  };
  const { components: _components, ...rest } = document as Json;
  const { schemas: _schemas, ...otherComponents } = components;
  return { ...(inline(rest) as Json), components: otherComponents } as T;
}
