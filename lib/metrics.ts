/**
 * Prometheus metrics (prom-client): one registry per process, served at /metrics by every component. Metric names
 * start with `ckg_`; label values are bounded sets (a route template, a status, a phase), never a raw path, node id,
 * source id or sync id, so the number of series stays small whatever the traffic.
 *
 * `counter`, `histogram` and `gauge` return the metric already registered under a name, so a module may declare the
 * metric it records where it records it, and two components in one process (the tests) share it.
 */
import client from 'prom-client';

export const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry });

/** Latency buckets in seconds: 5 ms to 2 minutes (reads, proxied calls, model calls). */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
/** Duration buckets in seconds for sync phases: 50 ms to 2 hours. */
export const PHASE_BUCKETS = [0.05, 0.25, 1, 5, 15, 60, 300, 900, 1800, 3600, 7200];

type Labels<L extends string> = readonly L[];

export function counter<L extends string>(name: string, help: string, labelNames: Labels<L> = []): client.Counter<L> {
  const existing = registry.getSingleMetric(name);
  if (existing) return existing as client.Counter<L>;
  return new client.Counter({ name, help, labelNames, registers: [registry] });
}

export function histogram<L extends string>(
  name: string,
  help: string,
  labelNames: Labels<L> = [],
  buckets: number[] = LATENCY_BUCKETS,
): client.Histogram<L> {
  const existing = registry.getSingleMetric(name);
  if (existing) return existing as client.Histogram<L>;
  return new client.Histogram({ name, help, labelNames, buckets, registers: [registry] });
}

/** A gauge; `collect` (optional) sets its values at scrape time. */
export function gauge<L extends string>(
  name: string,
  help: string,
  labelNames: Labels<L> = [],
  collect?: (g: client.Gauge<L>) => void | Promise<void>,
): client.Gauge<L> {
  const existing = registry.getSingleMetric(name);
  if (existing) return existing as client.Gauge<L>;
  return new client.Gauge({
    name,
    help,
    labelNames,
    registers: [registry],
    ...(collect
      ? {
          collect(this: client.Gauge<L>) {
            return collect(this);
          },
        }
      : {}),
  });
}

/** The text exposition format and its content type, for a /metrics handler. */
export async function exposition(): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}

/** Seconds since `startedMs` (a performance.now() value). */
export function secondsSince(startedMs: number): number {
  return (performance.now() - startedMs) / 1000;
}
