import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import type { TestServer } from './server.js';
import { seededRandom } from '../engine/vectors/kmeans.js';

/** mulberry32 on a seed, so a failing run replays (the engine's generator). */
export const seeded = seededRandom;

export interface TestPoint {
  id: number | string;
  vector: number[];
  payload: Record<string, unknown>;
}

const cities = ['Oslo', 'Paris', 'Lima', 'Pune', 'Kyiv'];
const words = ['red', 'green', 'blue', 'fast', 'slow', 'quiet', 'loud'];

/**
 * `count` points with payloads of every kind a filter reads: keywords, integers, floats, booleans, lists, dates,
 * geo points, nested objects, lists of objects, nulls, empty lists and missing fields. Half the ids are integers,
 * half UUIDs.
 */
export function testPoints(count: number, dims: number, seed = 43): TestPoint[] {
  const next = seeded(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  return Array.from({ length: count }, (_, i) => {
    const payload: Record<string, unknown> = {
      city: pick(cities),
      count: Math.floor(next() * 100),
      price: Math.round(next() * 10000) / 100,
      in_stock: next() < 0.5,
      tags: Array.from({ length: Math.floor(next() * 4) }, () => pick(words)),
      created: new Date(Date.UTC(2024, 0, 1) + Math.floor(next() * 365) * 86400000).toISOString(),
      location: { lat: 40 + next() * 20, lon: -10 + next() * 40 },
      description: `${pick(words)} ${pick(words)} item number ${i}`,
      specs: { size: { width: Math.floor(next() * 50) } },
      parts: Array.from({ length: 1 + Math.floor(next() * 3) }, () => ({
        name: pick(words),
        qty: Math.floor(next() * 5),
      })),
    };
    if (i % 7 === 0) payload.note = null;
    else if (i % 7 === 1) payload.note = 'checked';
    if (i % 11 === 0) delete payload.city;
    return {
      id: i % 2 === 0 ? i : randomUUIDFrom(next),
      vector: Array.from({ length: dims }, () => next() * 2 - 1),
      payload,
    };
  });
}

function randomUUIDFrom(next: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(next() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
}

/** A port nobody listens on now (the server under test listens on it next). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** A tenant with an admin and a GoDB API key (role admin) for Qdrant clients. */
export async function tenantWithKey(server: TestServer): Promise<{ token: string; key: string; tenantId: string }> {
  const admin = await server.registerTenant(`qdrant-${randomUUID()}@example.com`);
  const res = await server.call('POST', '/auth/api-keys', admin.token, { name: 'qdrant client', role: 'admin' });
  if (res.status !== 201) throw new TypeError(`api key: ${res.text}`);
  return { token: admin.token, key: String(res.body.key), tenantId: admin.tenantId };
}

export const dot = (a: readonly number[], b: readonly number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);
export const cosine = (a: readonly number[], b: readonly number[]) => dot(a, b) / Math.hypot(...a) / Math.hypot(...b);
export const euclid = (a: readonly number[], b: readonly number[]) => Math.hypot(...a.map((x, i) => x - b[i]!));
