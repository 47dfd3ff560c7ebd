/**
 * Calls to the model host, by endpoint (`embeddings`, `chat`): `ckg_model_request_duration_seconds{endpoint,outcome}`
 * (outcome `ok` or `error`) for every HTTP attempt, and `ckg_model_request_failures_total{endpoint,reason}` for the
 * failed ones, reason one of `unreachable`, `timeout`, `http_4xx`, `http_429`, `http_5xx`, `context_overflow`,
 * `invalid_response`.
 */
import { counter, histogram, secondsSince } from './metrics.ts';

export type ModelEndpoint = 'embeddings' | 'chat';
export type ModelFailure =
  'unreachable' | 'timeout' | 'http_4xx' | 'http_429' | 'http_5xx' | 'context_overflow' | 'invalid_response';

const duration = histogram('ckg_model_request_duration_seconds', 'Model host calls by endpoint and outcome', [
  'endpoint',
  'outcome',
]);
const failures = counter('ckg_model_request_failures_total', 'Failed model host calls by endpoint and reason', [
  'endpoint',
  'reason',
]);

/** Records one attempt started at `startedMs` (performance.now()); `failure` absent means it succeeded. */
export function recordModelCall(endpoint: ModelEndpoint, startedMs: number, failure?: ModelFailure): void {
  duration.observe({ endpoint, outcome: failure ? 'error' : 'ok' }, secondsSince(startedMs));
  if (failure) failures.inc({ endpoint, reason: failure });
}

/** The reason of a failed fetch (no HTTP answer). */
export function fetchFailure(err: unknown): ModelFailure {
  return err instanceof Error && err.name === 'TimeoutError' ? 'timeout' : 'unreachable';
}

/** The reason of an HTTP error status. */
export function statusFailure(status: number): ModelFailure {
  if (status === 429) return 'http_429';
  return status >= 500 ? 'http_5xx' : 'http_4xx';
}
