/** What the graph component's routes need; tests build these around a test database and the model stand-in. */
import type { Pool } from '../lib/db.ts';
import type { Logger } from '../lib/log.ts';
import type { SourceUrlPolicy } from '../lib/source-url.ts';
import type { Ready } from '../lib/ops-routes.ts';
import type { IngestionClient } from './ingestion-client.ts';
import type { QueryEmbedder } from './search/embedder.ts';
import type { SummaryService } from './summary/service.ts';

export interface GraphAppDeps {
  pool: Pool;
  log: Logger;
  /** Liveness check for /health (lib/db.ts poolLiveness): a reason when the process can no longer serve. */
  liveness?: () => string | undefined;
  ingestion: IngestionClient;
  /** Which repository URLs sources may name (lib/source-url.ts; SOURCE_URL_SCHEMES, SOURCE_URL_HOSTS). */
  sourceUrls: SourceUrlPolicy;
  embedder: QueryEmbedder;
  summaries: SummaryService;
  /** GRAPH_QUERY_TIMEOUT_SECONDS in ms: the wall-clock cap of every graph read. */
  graphTimeoutMs: number;
  /** Readiness (GET /ready); default: the database answers. */
  ready?: Ready;
  /** Byte budget of the merged graph's per-sync snapshot cache (default 256 MiB; merged results get half as much). */
  snapshotCacheBytes?: number;
  /** Byte budget of the symbol graphs kept for symbol detail and impact (default 256 MiB). */
  symbolCacheBytes?: number;
}
