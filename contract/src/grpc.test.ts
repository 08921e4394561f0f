import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { operations } from './catalogue.js';
import { grpcMessages, grpcServices, renderProto } from './grpc.js';

test('the checked-in proto is the one generated from the catalogue', () => {
  const proto = readFileSync(fileURLToPath(new URL('../proto/godb.proto', import.meta.url)), 'utf8');
  assert.equal(proto, renderProto(), 'contract/proto/godb.proto is stale: run npm run proto -w contract');
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
    const numbers = message.fields.map((f) => f.number);
    assert.equal(new Set(numbers).size, numbers.length, message.name);
  }
  // The services the specification lists, and the streamed import (issue #16).
  assert.deepEqual(
    grpcServices.map((s) => [s.name, s.methods.map((m) => m.name)]),
    [
      ['SearchService', ['TextSearch', 'VectorSearch', 'HybridSearch']],
      ['AdminService', ['GetUser', 'CreateGroup']],
      ['DocumentService', ['ImportDocuments']],
    ],
  );
});
