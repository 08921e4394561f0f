import { monitorEventLoopDelay } from 'node:perf_hooks';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Live figures the metrics read at each scrape. */
export interface MetricSources {
  /** API requests holding an in-flight slot. */
  readonly inFlight: () => number;
}

/**
 * Prometheus metrics of one server instance (its own registry, so several instances can live in one process).
 * Call `close()` when the server closes: the event-loop monitor samples until then.
 */
export function createMetrics(sources: MetricSources) {
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
  new Gauge({
    name: 'godb_http_requests_in_flight',
    help: 'API requests being served now (MAX_CONCURRENT_OPERATIONS caps it; beyond it 503).',
    registers: [registry],
    collect() {
      this.set(sources.inFlight());
    },
  });
  // A blocked event loop delays every request and timer (deadlines, shutdown): this shows it, per scrape interval.
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  // The quantiles' collect sets the maximum too, so it is registered first and the two describe one interval.
  new Gauge({
    name: 'godb_event_loop_delay_seconds',
    help: 'Event-loop delay since the previous scrape, by quantile.',
    labelNames: ['quantile'] as const,
    registers: [registry],
    collect() {
      // An interval with no sample (a scrape right after another) reads 0, not the empty histogram's sentinel.
      const seconds = (ns: number) => (loop.count > 0 ? ns / 1e9 : 0);
      this.set({ quantile: '0.5' }, seconds(loop.percentile(50)));
      this.set({ quantile: '0.99' }, seconds(loop.percentile(99)));
      maxDelay.set(seconds(loop.max));
      loop.reset();
    },
  });
  const maxDelay = new Gauge({
    name: 'godb_event_loop_delay_max_seconds',
    help: 'Longest event-loop delay since the previous scrape.',
    registers: [registry],
  });
  return { registry, requests, duration, close: () => loop.disable() };
}

export type Metrics = ReturnType<typeof createMetrics>;
