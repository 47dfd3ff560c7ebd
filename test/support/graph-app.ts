/**
 * The graph component in-process on port 0 against a fresh test database, with real neighbours: the project's
 * model-host stand-in (standins/model-host) and the real ingestion component (temporal/ingestion, on the real
 * Temporal server), all over real HTTP.
 */
import type { Server } from 'node:http';
import type Koa from 'koa';
import type { AddressInfo } from 'node:net';
import { EmbeddingClient } from '../../lib/embeddings.ts';
import { listen } from '../../lib/http.ts';
import { testLogger } from './log.ts';
import { createGraphApp } from '../../graph-api/app.ts';
import { createIngestionClient } from '../../graph-api/ingestion-client.ts';
import { createDenseClient } from '../../graph-api/summary/dense-client.ts';
import { createSummaryService } from '../../graph-api/summary/service.ts';
import type { SummaryBudget } from '../../graph-api/summary/prompt.ts';
import type { ModelHostConfig } from '../../standins/model-host/config.ts';
import { startModelHost, type ModelHost } from '../../standins/model-host/server.ts';
import type { ErrorBody } from './graph-api-types.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';
import { TEST_URL_POLICY } from './env.ts';
import { startIngestionComponent, type IngestionComponent } from './ingestion-component.ts';

/** A response: the body as the caller expects it, or the error body. */
export interface Reply<T> {
  status: number;
  body: T & ErrorBody;
}

export interface GraphTestApp {
  db: TestDatabase;
  models: ModelHost;
  /** The ingestion component the graph component calls; undefined when `ingestionUrl` pointed elsewhere. */
  ingestion: IngestionComponent | undefined;
  url: string;
  /** The graph component's Koa app (its routers list the routes it registers). */
  app: Koa;
  get<T = unknown>(path: string): Promise<Reply<T>>;
  send<T = unknown>(method: string, path: string, body?: unknown): Promise<Reply<T>>;
  close(): Promise<void>;
}

export interface GraphTestAppOptions {
  graphTimeoutMs?: number;
  budget?: Partial<SummaryBudget>;
  /** LLM_API_KEY: the model host requires it and the graph component sends it to both endpoints. */
  apiKey?: string;
  /** Settings of the model-host stand-in, e.g. `chatContextTokens` (MODEL_HOST_CHAT_CONTEXT_TOKENS). */
  modelHost?: Partial<ModelHostConfig>;
  /** Talk to this ingestion address instead of starting the ingestion component. */
  ingestionUrl?: string;
  /** Extra environment of the ingestion component (e.g. TEMPORAL_NAMESPACE). */
  ingestionEnv?: Record<string, string>;
  /** Use this database (it is left in place by close()) instead of a fresh one. */
  db?: TestDatabase;
  /** The summary limiter (SUMMARY_CONCURRENCY, SUMMARY_QUEUE_SIZE, SUMMARY_QUEUE_TIMEOUT_SECONDS in ms). */
  summaryLimits?: { concurrency: number; queue: number; queueTimeoutMs: number };
}

export const DEFAULT_BUDGET: SummaryBudget = {
  totalChars: 100_000,
  fileRatio: 0.88,
  neighborRatio: 0.1,
  neighborChars: 1200,
  edgeNeighbors: 10,
};

export async function startGraphTestApp(opts: GraphTestAppOptions = {}): Promise<GraphTestApp> {
  const db = opts.db ?? (await createTestDatabase());
  const models = await startModelHost(
    { ...opts.modelHost, ...(opts.apiKey === undefined ? {} : { apiKey: opts.apiKey }) },
    testLogger('model-host'),
  );
  const ingestion =
    opts.ingestionUrl === undefined ? await startIngestionComponent(db.url, opts.ingestionEnv) : undefined;
  const log = testLogger('graph-api');
  const app = createGraphApp({
    pool: db.pool,
    log,
    ingestion: createIngestionClient(opts.ingestionUrl ?? ingestion!.url, 10_000),
    sourceUrls: TEST_URL_POLICY,
    embedder: new EmbeddingClient({
      url: models.embeddingUrl,
      model: 'embeddings',
      dimension: 896,
      ...(opts.apiKey === undefined ? {} : { apiKey: opts.apiKey }),
      attempts: 1,
    }),
    summaries: createSummaryService({
      pool: db.pool,
      log,
      dense: createDenseClient({
        url: models.chatUrl,
        model: 'dense',
        apiKey: opts.apiKey,
        maxTokens: 400,
        timeoutMs: 10_000,
      }),
      budget: { ...DEFAULT_BUDGET, ...opts.budget },
      ...(opts.summaryLimits ? { limits: opts.summaryLimits } : {}),
    }),
    graphTimeoutMs: opts.graphTimeoutMs ?? 60_000,
  });
  const server: Server = await listen(app, 0, '127.0.0.1');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const send = async <T>(method: string, path: string, body?: unknown): Promise<Reply<T>> => {
    const res = await fetch(url + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text === '' ? undefined : JSON.parse(text)) as T & ErrorBody };
  };
  return {
    db,
    models,
    ingestion,
    url,
    app,
    get: (path) => send('GET', path),
    send,
    close: async () => {
      await new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      });
      await models.close();
      await ingestion?.close();
      if (!opts.db) await db.drop();
    },
  };
}
