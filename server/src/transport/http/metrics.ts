import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** Prometheus metrics of one server instance (its own registry, so several instances can live in one process). */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'godb_' });
  const requests = new Counter({
    name: 'godb_http_requests_total',
    help: 'HTTP requests answered, by method, route and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'godb_http_request_duration_seconds',
    help: 'Time to answer HTTP requests, by method and route.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  return { registry, requests, duration };
}

export type Metrics = ReturnType<typeof createMetrics>;
