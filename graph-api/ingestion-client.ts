/**
 * The graph component's one call to the ingestion component: before a source row is deleted, its Temporal state
 * (active workflow, schedules) is torn down by `DELETE {INGESTION_SERVICE_URL}/ingest/sources/{id}`
 * (docs/decisions.md). Unreachable → 503 UPSTREAM_UNAVAILABLE, no answer in time → 504 UPSTREAM_TIMEOUT, an error
 * answer → 502 UPSTREAM_DISCONNECTED; in every case the caller deletes nothing.
 */
import { UpstreamError } from '../lib/errors.ts';

export interface IngestionClient {
  teardownSource(sourceId: string): Promise<void>;
}

export function createIngestionClient(baseUrl: string, timeoutMs: number): IngestionClient {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    async teardownSource(sourceId) {
      let res: Response;
      try {
        res = await fetch(`${base}/ingest/sources/${encodeURIComponent(sourceId)}`, {
          method: 'DELETE',
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (err) {
        if (err instanceof Error && err.name === 'TimeoutError') {
          throw new UpstreamError('UPSTREAM_TIMEOUT', `the ingestion component did not answer within ${timeoutMs} ms`, {
            cause: err,
          });
        }
        throw new UpstreamError('UPSTREAM_UNAVAILABLE', 'the ingestion component is unreachable; nothing was deleted', {
          cause: err,
        });
      }
      await res.arrayBuffer().catch(() => undefined);
      // 404: the ingestion component holds no state for this source (nothing to tear down).
      if (res.ok || res.status === 404) return;
      throw new UpstreamError(
        'UPSTREAM_DISCONNECTED',
        `the ingestion component refused the teardown (HTTP ${res.status}); nothing was deleted`,
      );
    },
  };
}
