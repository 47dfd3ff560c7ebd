/**
 * A sync pipeline for tests: a database of its own, the project's model-host stand-in (its embedding endpoint), an
 * in-process worker on a unique task queue, and helpers that create a source + pending run (as the ingestion
 * component does) and start the workflow.
 */
import type { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_PIPELINE_SETTINGS, type PipelineSettings } from '../../activities/index.ts';
import { createEngine } from '../../engine/index.ts';
import type { Engine } from '../../engine/types.ts';
import type { Queryable } from '../../lib/db.ts';
import { EmbeddingClient } from '../../lib/embeddings.ts';
import { insertPendingRun } from '../../lib/sync-runs/index.ts';
import { testLogger } from './log.ts';
import { SYNC_WORKFLOW_TYPE, syncStartOptions, syncWorkflowResult } from '../../workflows/sync-contract.ts';
import { createWorker, type SyncWorker } from '../../temporal/worker.ts';
import type { SyncWorkflowResult } from '../../workflows/sync-types.ts';
import type { syncWorkflow } from '../../workflows/sync.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';
import { startObservedModelHost, type ObservedModelHost } from './observed-model-host.ts';
import { connectClient, connectWorker, prebuiltWorkflows, uniqueTaskQueue } from './temporal.ts';
import { TEST_URL_POLICY, testEnv } from './env.ts';

export const quietLog = testLogger('worker-test');

export interface Harness {
  db: TestDatabase;
  /** The model-host stand-in the worker embeds with (fault knobs, counters, request log). */
  modelHost: ObservedModelHost;
  client: Client;
  taskQueue: string;
  cloneDir: string;
  settings: PipelineSettings;
  embeddingClient: EmbeddingClient;
  /** Starts an in-process worker (stopped by close()). */
  startWorker(): Promise<SyncWorker>;
  close(): Promise<void>;
}

export async function createHarness(overrides: Partial<PipelineSettings> = {}): Promise<Harness> {
  const db = await createTestDatabase();
  const modelHost = await startObservedModelHost();
  const { client, close: closeClient } = await connectClient();
  const taskQueue = uniqueTaskQueue('pipeline');
  const cloneDir = mkdtempSync(join(tmpdir(), 'ckg-clones-'));
  const settings: PipelineSettings = {
    ...DEFAULT_PIPELINE_SETTINGS,
    sourceUrls: TEST_URL_POLICY,
    cloneDir,
    heartbeatTimeoutMs: 5000,
    hostQueueTimeoutMs: 10_000,
    maxAttempts: 3,
    parseThreads: 2,
    // The precise tier (issue 29) is planned only where a test asks for it (test/pipeline/precise.test.ts): with no
    // precise worker it would add one issue per language to every sync.
    precise: false,
    ...overrides,
  };
  const embeddingClient = new EmbeddingClient({
    url: modelHost.embeddingUrl,
    model: 'embeddings',
    dimension: 896,
    batchSize: settings.embeddingBatchSize,
    concurrency: settings.embeddingConcurrency,
    attempts: 3,
    backoffMs: 20,
  });
  const workers: Array<{ worker: SyncWorker; run: Promise<void>; connection: NativeConnection; engine: Engine }> = [];
  return {
    db,
    modelHost,
    client,
    taskQueue,
    cloneDir,
    settings,
    embeddingClient,
    async startWorker() {
      const connection = await connectWorker();
      const engine = createEngine({ threads: 2 });
      const worker = await createWorker({
        connection,
        namespace: testEnv.temporalNamespace,
        taskQueue,
        pool: db.pool,
        engine,
        embeddings: embeddingClient,
        settings,
        log: quietLog,
        ...prebuiltWorkflows(),
      });
      workers.push({ worker, run: worker.run(), connection, engine });
      return worker;
    },
    async close() {
      for (const w of workers) {
        if (w.worker.getState() === 'RUNNING') w.worker.shutdown();
        await w.run.catch(() => undefined);
        await w.engine.close();
        await w.connection.close();
      }
      await closeClient();
      await modelHost.close();
      await db.drop();
      rmSync(cloneDir, { recursive: true, force: true });
    },
  };
}

export interface SourceInput {
  url: string;
  owner?: string;
  name?: string;
  defaultBranch?: string;
  config?: Record<string, unknown>;
  enabled?: boolean;
  token?: string;
}

export async function insertSource(db: Queryable, s: SourceInput): Promise<string> {
  const r = await db.query<{ id: string }>(
    `INSERT INTO sources (owner, name, url, default_branch, config, enabled) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
    [
      s.owner ?? 'acme',
      s.name ?? `repo-${Math.random().toString(36).slice(2, 8)}`,
      s.url,
      s.defaultBranch ?? 'main',
      JSON.stringify(s.config ?? {}),
      s.enabled ?? true,
    ],
  );
  const id = r.rows[0]!.id;
  if (s.token) await db.query(`INSERT INTO source_secrets (source_id, access_token) VALUES ($1, $2)`, [id, s.token]);
  return id;
}

/** Inserts a pending run with its lifecycle event, as the ingestion component does. */
export async function insertPendingSync(db: Queryable, sourceId: string, ref: string | null = null): Promise<string> {
  const source = await db.query<{ config: Record<string, unknown> }>(`SELECT config FROM sources WHERE id = $1`, [
    sourceId,
  ]);
  const run = await insertPendingRun(db, {
    sourceId,
    configSnapshot: source.rows[0]!.config,
    ref,
    triggeredBy: 'test',
    scheduleId: null,
  });
  return run!.id;
}

export async function startSync(h: Harness, sourceId: string, syncId: string) {
  return h.client.workflow.start<typeof syncWorkflow>(
    SYNC_WORKFLOW_TYPE,
    syncStartOptions({
      syncId,
      sourceId,
      sourceName: 'acme/demo',
      ref: 'main',
      trigger: 'test',
      taskQueue: h.taskQueue,
    }),
  );
}

export async function runSync(h: Harness, sourceId: string, syncId: string): Promise<SyncWorkflowResult> {
  const handle = await startSync(h, sourceId, syncId);
  return syncWorkflowResult(handle.result());
}

export interface RunRow {
  status: string;
  error: string | null;
  progress_done: number;
  progress_total: number;
  progress_meta: Record<string, unknown>;
  stats: Record<string, unknown>;
  issues_recorded: number;
  started_at: Date | null;
  completed_at: Date | null;
}

export async function getRun(db: Queryable, syncId: string): Promise<RunRow> {
  const r = await db.query<RunRow>(`SELECT * FROM sync_runs WHERE id = $1`, [syncId]);
  return r.rows[0]!;
}

/** Counts of everything a sync leaves: rows, vectors, graph, issues. */
export interface SyncCounts {
  files: number;
  files_with_vector: number;
  chunks: number;
  chunks_with_vector: number;
  file_vertices: number;
  symbol_vertices: number;
  depends_on: number;
  defines: number;
  issues: number;
}

export async function syncCounts(db: Queryable, syncId: string): Promise<SyncCounts> {
  const q = async (sql: string) => Number((await db.query<{ n: string }>(sql, [syncId])).rows[0]!.n);
  // A sync's graph rows: its own, or those of the sync whose graph it shares (schema V50).
  const agKey = `ag_catalog.agtype_access_operator(properties, '"sync_id"'::ag_catalog.agtype) = ('"' || graph_sync_of($1::uuid)::text || '"')::ag_catalog.agtype`;
  return {
    files: await q(`SELECT count(*) AS n FROM file_records WHERE sync_id = $1`),
    files_with_vector: await q(`SELECT count(embedding) AS n FROM file_records WHERE sync_id = $1`),
    chunks: await q(`SELECT count(*) AS n FROM content_chunks WHERE sync_id = $1`),
    chunks_with_vector: await q(`SELECT count(embedding) AS n FROM content_chunks WHERE sync_id = $1`),
    file_vertices: await q(`SELECT count(*) AS n FROM service."File" WHERE ${agKey}`),
    symbol_vertices: await q(`SELECT count(*) AS n FROM service."Symbol" WHERE ${agKey}`),
    depends_on: await q(`SELECT count(*) AS n FROM service.depends_on WHERE ${agKey}`),
    defines: await q(`SELECT count(*) AS n FROM service.defines WHERE ${agKey}`),
    issues: await q(`SELECT count(*) AS n FROM sync_issues WHERE sync_id = $1`),
  };
}
