import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chooseRoute } from './smart-route.js';

const route = (query: string, extra: Partial<Parameters<typeof chooseRoute>[0]> = {}) =>
  chooseRoute({ query, mode: 'auto', autoRoute: true, hasPoint: false, ...extra }).route;

test('routes by the shape of the query', () => {
  assert.equal(route('why does the boundary layer separate'), 'semantic');
  assert.equal(route('heat transfer?'), 'semantic');
  assert.equal(route('effect of sweep on the lift of thin delta wings at supersonic speed'), 'semantic');
  assert.equal(route('"boundary layer"'), 'text');
  assert.equal(route('bound* layer'), 'text');
  assert.equal(route('shock'), 'text');
  assert.equal(route('laminar flow transition'), 'hybrid');
  assert.equal(route('', { hasPoint: true }), 'geo');
  assert.equal(route('shock', { mode: 'semantic' }), 'semantic');
  assert.equal(route('shock', { autoRoute: false }), 'hybrid');
});
