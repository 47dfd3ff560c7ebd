/**
 * Start-up of the graph component: apply migrations, refuse to start when the embedding columns' dimension differs
 * from EMBEDDING_DIM, then listen on APP_PORT. Returns a handle whose close() stops accepting, drains and ends the
 * pool.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createPool, poolLiveness } from '../lib/db.ts';
import { listen } from '../lib/http.ts';
import { EmbeddingClient } from '../lib/embeddings.ts';
import { createLogger, type Logger } from '../lib/log.ts';
import { createReadiness, databaseCheck, httpCheck } from '../lib/readiness.ts';
import { sourceUrlPolicy } from '../lib/source-url.ts';
import { checkEmbeddingDimension, migrate } from '../schema/migrate.ts';
import { createGraphApp } from './app.ts';
import type { GraphConfig } from './config.ts';
import { createIngestionClient } from './ingestion-client.ts';
import { createDenseClient } from './summary/dense-client.ts';
import { createSummaryService } from './summary/service.ts';

export interface GraphApiHandle {
  port: number;
  url: string;
  close(): Promise<void>;
}

export async function startGraphApi(
  config: GraphConfig,
  log: Logger = createLogger('graph-api'),
): Promise<GraphApiHandle> {
  const migrated = await migrate(config.DATABASE_URL, log);
  const pool = createPool(config.DATABASE_URL, {
    max: config.DATABASE_POOL_SIZE,
    applicationName: 'ckg-graph-api',
    acquireTimeoutMs: config.DATABASE_ACQUIRE_TIMEOUT_SECONDS * 1000,
    log,
  });
  try {
    await checkEmbeddingDimension(pool, config.EMBEDDING_DIM);
  } catch (err) {
    await pool.end();
    throw err;
  }
  const apiKey = config.LLM_API_KEY === '' ? undefined : config.LLM_API_KEY;
  const embedder = new EmbeddingClient({
    url: config.EMBEDDING_URL,
    model: config.EMBEDDING_MODEL,
    dimension: config.EMBEDDING_DIM,
    ...(apiKey ? { apiKey } : {}),
    // An interactive query: fail fast rather than make the caller wait through five backoffs.
    attempts: 2,
    timeoutMs: 30_000,
    log,
  });
  const dense = createDenseClient({
    url: config.DENSE_LLM_URL,
    model: config.DENSE_LLM_MODEL,
    apiKey,
    maxTokens: config.SUMMARY_MAX_TOKENS,
    timeoutMs: config.DENSE_LLM_TIMEOUT_SECONDS * 1000,
  });
  // Summaries get a pool of their own, one connection per concurrent summary: a storm of them never takes the
  // connections of ordinary reads.
  const summaryPool = createPool(config.DATABASE_URL, {
    max: config.SUMMARY_CONCURRENCY,
    applicationName: 'ckg-graph-api-summary',
    acquireTimeoutMs: config.DATABASE_ACQUIRE_TIMEOUT_SECONDS * 1000,
    log,
  });
  const summaries = createSummaryService({
    pool: summaryPool,
    dense,
    log,
    limits: {
      concurrency: config.SUMMARY_CONCURRENCY,
      queue: config.SUMMARY_QUEUE_SIZE,
      queueTimeoutMs: config.SUMMARY_QUEUE_TIMEOUT_SECONDS * 1000,
    },
    budget: {
      totalChars: config.SUMMARY_TOTAL_BUDGET_CHARS,
      fileRatio: config.SUMMARY_FILE_BUDGET_RATIO,
      neighborRatio: config.SUMMARY_NEIGHBOR_BUDGET_RATIO,
      neighborChars: config.SUMMARY_NEIGHBOR_CHARS,
      edgeNeighbors: config.SUMMARY_EDGE_NEIGHBORS,
    },
  });
  const app = createGraphApp({
    pool,
    log,
    // Wedged: every read connection checked out for twice the longest a read may take, none released.
    liveness: poolLiveness(pool, Math.max(60_000, 2 * config.GRAPH_QUERY_TIMEOUT_SECONDS * 1000)),
    ingestion: createIngestionClient(config.INGESTION_SERVICE_URL, config.INGESTION_TIMEOUT_SECONDS * 1000),
    sourceUrls: sourceUrlPolicy(config),
    embedder,
    summaries,
    graphTimeoutMs: Math.round(config.GRAPH_QUERY_TIMEOUT_SECONDS * 1000),
    // Reads need only the database; the ingestion component (source deletion only) is reported, not required.
    ready: createReadiness(
      { database: databaseCheck(pool) },
      { ingestion: httpCheck(`${config.INGESTION_SERVICE_URL.replace(/\/+$/, '')}/health`) },
    ),
  });
  const server: Server = await listen(app, config.APP_PORT, config.APP_HOST);
  const port = (server.address() as AddressInfo).port;
  log.info('graph_api_started', {
    port,
    schema_version: migrated.current,
    migrations_applied: migrated.applied,
    embedding_dim: config.EMBEDDING_DIM,
  });
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await Promise.all([pool.end(), summaryPool.end()]);
      log.info('graph_api_stopped', {});
    },
  };
}
