import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Type } from '@sinclair/typebox';
import { operations } from './catalogue.js';
import { grpcFieldNumbers } from './grpc-field-numbers.js';
import { deriveMessages, fieldNumbers } from './grpc-messages.js';
import { grpcMessages, grpcServices, GrpcSearchExtras, renderProto } from './grpc.js';
import { searchText } from './operations/search-text.js';
import { GeoPoint } from './schemas/common.js';

test('the checked-in proto and field numbers are the ones generated from the catalogue’s schemas', () => {
  const proto = readFileSync(fileURLToPath(new URL('../proto/godb.proto', import.meta.url)), 'utf8');
  assert.equal(proto, renderProto(), 'contract/proto/godb.proto is stale: run npm run proto -w contract');
  assert.deepEqual(
    fieldNumbers(grpcMessages, grpcFieldNumbers),
    grpcFieldNumbers,
    'contract/src/grpc-field-numbers.ts is stale: run npm run proto -w contract',
  );
});

test('a field added to a REST schema reaches its gRPC message with the next number; a removed one is reserved', () => {
  const withField = deriveMessages(
    [
      {
        name: 'TextSearchRequest',
        description: 'Full-text search.',
        parts: [searchText.body, Type.Object({ boost: Type.Optional(Type.Number({ minimum: 0 })) }), GrpcSearchExtras],
      },
    ],
    grpcFieldNumbers,
  )[0]!;
  const committed = grpcFieldNumbers.TextSearchRequest!;
  const boost = withField.fields.find((f) => f.name === 'boost');
  assert.deepEqual(
    { type: boost?.type, number: boost?.number, optional: boost?.optional },
    { type: 'double', number: Math.max(...Object.values(committed)) + 1, optional: true },
  );
  for (const field of withField.fields.filter((f) => f.name !== 'boost'))
    assert.equal(field.number, committed[field.name], `${field.name} keeps its number`);
  const withoutExtras = deriveMessages(
    [{ name: 'TextSearchRequest', description: 'Full-text search.', parts: [searchText.body] }],
    grpcFieldNumbers,
  )[0]!;
  assert.deepEqual(withoutExtras.reserved, [committed.offset, committed.roles, committed.groups]);
  assert.match(renderProto([withoutExtras]), /reserved 2, 5, 6;/);
});

test('schema shapes map to proto types: scalars, nested messages, maps, JSON text and presence', () => {
  const [message] = deriveMessages(
    [
      {
        name: 'Example',
        description: 'An example.',
        parts: [
          Type.Object({
            userID: Type.String(),
            count: Type.Integer({ minimum: 1, maximum: 100 }),
            total: Type.Integer(),
            weight: Type.Number({ minimum: 0, maximum: 1, default: 0.5 }),
            size: Type.Integer({ minimum: 1, maximum: 1000, default: 10 }),
            point: GeoPoint,
            tags: Type.Array(Type.String()),
            labels: Type.Record(Type.String(), Type.Unknown()),
            scores: Type.Record(Type.String(), Type.Number()),
            filters: Type.Union([Type.Array(Type.Object({ field: Type.String() })), Type.String()]),
            box: Type.Optional(Type.Object({ width: Type.Number() })),
          }),
        ],
      },
    ],
    {},
  );
  const proto = (name: string) => {
    const f = message!.fields.find((x) => x.name === name)!;
    return `${f.repeated ? 'repeated ' : f.optional ? 'optional ' : ''}${f.type} ${f.name} = ${f.number}${f.encoding ? ` (${f.encoding})` : ''}`;
  };
  assert.deepEqual(
    ['user_id', 'count', 'total', 'weight', 'size', 'point', 'tags', 'labels', 'scores', 'filters', 'box'].map(proto),
    [
      'string user_id = 1',
      'int32 count = 2',
      'int64 total = 3',
      'optional double weight = 4',
      'int32 size = 5',
      'GeoPoint point = 6',
      'repeated string tags = 7',
      'map<string, string> labels = 8 (text-map)',
      'map<string, double> scores = 9',
      'string filters = 10 (json)',
      'ExampleBox box = 11',
    ],
  );
  assert.equal(message!.fields[0]!.key, 'userID');
});

test('every gRPC method names an existing operation and known messages; field numbers are unique', () => {
  const names = new Set(grpcMessages.map((m) => m.name));
  for (const service of grpcServices) {
    for (const method of service.methods) {
      assert.ok(
        operations.some((o) => o.id === method.operationId),
        method.name,
      );
      assert.ok(names.has(method.request) && names.has(method.response), method.name);
    }
  }
  for (const message of grpcMessages) {
    const numbers = [...message.fields.map((f) => f.number), ...message.reserved];
    assert.equal(new Set(numbers).size, numbers.length, message.name);
  }
  // The services the specification lists, and the streamed import (issue #16).
  assert.deepEqual(
    grpcServices.map((s) => [s.name, s.methods.map((m) => m.name)]),
    [
      ['SearchService', ['TextSearch', 'VectorSearch', 'HybridSearch', 'Query']],
      ['AdminService', ['GetUser', 'CreateGroup', 'GetCluster']],
      ['DocumentService', ['ImportDocuments']],
    ],
  );
});
