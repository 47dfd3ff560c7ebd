/**
 * Everything an ingestion test needs, all real: a migrated database of its own, the Temporal dev server with the
 * sync worker (temporal/worker.ts: the real workflows and activities) on a task queue of its own, the project's
 * model-host stand-in for embeddings, git repositories made at test time for the sources to point at, and the
 * ingestion app listening on a free port, spoken to over HTTP.
 *
 * Runs that must stay `running` for a while (to cancel, purge or conflict with them) are held by real means: the
 * worker embeds one input per request, one request at a time, and `holdSyncs()` makes the model host answer each
 * request after HOLD_LATENCY_MS, so a sync of `repos.slow` stays in its embedding phases for minutes;
 * `releaseSyncs()` lets it finish in seconds.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { DEFAULT_PIPELINE_SETTINGS, type PipelineSettings } from '../../../activities/index.ts';
import { createEngine } from '../../../engine/index.ts';
import { EmbeddingClient } from '../../../lib/embeddings.ts';
import { createLogger, type Logger } from '../../../lib/log.ts';
import { createApp } from '../../../temporal/ingestion/app.ts';
import type { IngestionDeps, IngestionSettings } from '../../../temporal/ingestion/deps.ts';
import { createWorker } from '../../../temporal/worker.ts';
import { createTestDatabase, type TestDatabase } from '../db.ts';
import { TEST_URL_POLICY, testEnv } from '../env.ts';
import { addCommit, addRef, createRepo, generatedFiles, type TestRepo } from '../git-repos.ts';
import { startObservedModelHost, type ObservedModelHost } from '../observed-model-host.ts';
import { connectClient, connectWorker, prebuiltWorkflows, uniqueTaskQueue } from '../temporal.ts';
import { waitFor } from '../wait.ts';

/** Latency of every embedding request while syncs are held (a sync of repos.slow: ~110 requests, ~4 minutes). */
export const HOLD_LATENCY_MS = 2000;
/** TypeScript files and Markdown files each of repos.slow. */
const SLOW_FILES = 24;
/** How long a test waits for a real sync to reach a status (the machine is shared and loaded). */
export const SYNC_WAIT_MS = 180_000;

export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  body: T;
}

export interface Repos {
  /**
   * A few files in src/, lib/ and docs/ on branches main and trunk and tag v1.2 (commit `taggedCommit`); main has
   * one more commit (CHANGELOG.md). Syncs in seconds.
   */
  small: TestRepo;
  taggedCommit: string;
  /**
   * 24 TypeScript files in src/ and 24 Markdown files in docs/: ~110 embedding requests, so a held sync stays running
   * for minutes, and a released one completes in a second or two.
   */
  slow: TestRepo;
}

export interface Harness {
  db: TestDatabase;
  client: Client;
  taskQueue: string;
  settings: IngestionSettings;
  url: string;
  /** Every log line of the app and the worker's activities, parsed. */
  logs: Array<Record<string, unknown>>;
  deps: IngestionDeps;
  modelHost: ObservedModelHost;
  repos: Repos;
  /** Slows every embedding request to HOLD_LATENCY_MS: a sync of repos.slow stays running. */
  holdSyncs(): void;
  /** Back to full speed: held syncs finish. */
  releaseSyncs(): void;
  api<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<ApiResponse<T>>;
  /** Raw request: the body is sent as given (for malformed JSON). */
  raw(method: string, path: string, body: string, contentType?: string): Promise<ApiResponse>;
  close(): Promise<void>;
}

function createRepos(): Repos {
  const small = createRepo({
    'README.md': '# Demo\n\nA small repository.\n',
    'src/app.ts': "import { helper } from './util';\n\nexport const run = () => helper(2);\n",
    'src/util.ts': 'export function helper(x: number): number {\n  return x * 2;\n}\n',
    'lib/read.ts':
      "import { helper } from '../src/util';\n\nexport function read(): number {\n  return helper(1);\n}\n",
    'docs/guide.md': '# Guide\n\n## Install\n\nRun it.\n',
  });
  addRef(small, 'branch', 'trunk');
  addRef(small, 'tag', 'v1.2');
  const taggedCommit = small.head;
  addCommit(small, { 'CHANGELOG.md': '# Changes\n\n- after v1.2\n' });
  const docs: Record<string, string> = {};
  for (let i = 0; i < SLOW_FILES; i++)
    docs[`docs/note${i}.md`] = `# Note ${i}\n\nThe ${i}th note.\n\n## More\n\nDetails of note ${i}.\n`;
  const slow = createRepo({ ...generatedFiles(SLOW_FILES), ...docs });
  return { small, taggedCommit, slow };
}

export async function startHarness(overrides: Partial<IngestionSettings> = {}): Promise<Harness> {
  const db = await createTestDatabase();
  const { client, close: closeClient } = await connectClient();
  const connection: NativeConnection = await connectWorker();
  const taskQueue = uniqueTaskQueue('ingestion');
  const logs: Array<Record<string, unknown>> = [];
  const log: Logger = createLogger('ingestion', {
    level: 'debug',
    write: (line) => logs.push(JSON.parse(line) as Record<string, unknown>),
  });
  const modelHost = await startObservedModelHost();
  const repos = createRepos();
  const cloneDir = mkdtempSync(join(tmpdir(), 'ckg-ingestion-clones-'));
  const pipeline: PipelineSettings = {
    ...DEFAULT_PIPELINE_SETTINGS,
    sourceUrls: TEST_URL_POLICY,
    cloneDir,
    heartbeatTimeoutMs: 5000,
    maxAttempts: 3,
    parseThreads: 1,
    embeddingBatchSize: 1,
    embeddingConcurrency: 1,
    // No precise worker here: the precise tier (issue 29) would add one issue per language to every sync.
    precise: false,
  };
  const engine = createEngine({ threads: 1 });
  const worker = await createWorker({
    connection,
    namespace: testEnv.temporalNamespace,
    taskQueue,
    pool: db.pool,
    engine,
    embeddings: new EmbeddingClient({
      url: modelHost.embeddingUrl,
      model: 'embeddings',
      dimension: 896,
      batchSize: 1,
      concurrency: 1,
      attempts: 3,
      backoffMs: 20,
    }),
    settings: pipeline,
    log,
    ...prebuiltWorkflows(),
  });
  const running = worker.run();
  const settings: IngestionSettings = {
    taskQueue,
    // Temporal schedules live in the shared dev server: a random prefix per harness keeps test files that run at
    // the same time, and schedules left by earlier runs, apart.
    scheduleIdPrefix: `sched-test-${randomBytes(6).toString('hex')}-`,
    cancelWaitMs: 20_000,
    stopTimeoutMs: 20_000,
    startConflictWaitMs: 5000,
    ...overrides,
  };
  const deps: IngestionDeps = { pool: db.pool, temporal: client, log, settings };
  const server: Server = createApp(deps).listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  async function parse(res: Response): Promise<ApiResponse> {
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  }

  /** Leaves nothing behind in the shared Temporal server: this harness's workflows and schedules. */
  async function cleanTemporal(): Promise<void> {
    const open = client.workflow.list({ query: `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'` });
    for await (const wf of open) {
      await client.workflow
        .getHandle(wf.workflowId, wf.runId)
        .terminate('test harness closed')
        .catch(() => undefined);
    }
    for await (const s of client.schedule.list()) {
      if (s.scheduleId.startsWith(settings.scheduleIdPrefix)) {
        await client.schedule
          .getHandle(s.scheduleId)
          .delete()
          .catch(() => undefined);
      }
    }
  }

  return {
    db,
    client,
    taskQueue,
    settings,
    url,
    logs,
    deps,
    modelHost,
    repos,
    holdSyncs: () => modelHost.setFaults({ latencyMs: HOLD_LATENCY_MS }, 'embeddings'),
    releaseSyncs: () => modelHost.setFaults({ latencyMs: 0 }, 'embeddings'),
    api: async <T>(method: string, path: string, body?: unknown) => {
      const res = await fetch(url + path, {
        method,
        ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      });
      return (await parse(res)) as ApiResponse<T>;
    },
    raw: async (method, path, body, contentType = 'application/json') =>
      parse(await fetch(url + path, { method, headers: { 'content-type': contentType }, body })),
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      modelHost.setFaults({ latencyMs: 0, failureRate: 0 });
      await cleanTemporal();
      worker.shutdown();
      await running;
      await engine.close();
      await connection.close();
      await closeClient();
      await modelHost.close();
      await db.drop();
      repos.small.remove();
      repos.slow.remove();
      rmSync(cloneDir, { recursive: true, force: true });
    },
  };
}

export async function syncStatus(h: Harness, syncId: string): Promise<string | undefined> {
  const r = await h.db.pool.query<{ status: string }>(`SELECT status FROM sync_runs WHERE id = $1`, [syncId]);
  return r.rows[0]?.status;
}

export async function waitForStatus(
  h: Harness,
  syncId: string,
  status: string,
  timeoutMs = SYNC_WAIT_MS,
): Promise<void> {
  await waitFor(`sync ${syncId} to be ${status}`, async () => (await syncStatus(h, syncId)) === status, timeoutMs);
}

export interface EventRowJson {
  id: string;
  type: string;
  sync_id: string | null;
  source_id: string | null;
  payload: Record<string, unknown>;
}

export async function events(h: Harness, type?: string): Promise<EventRowJson[]> {
  const r = await h.db.pool.query<EventRowJson>(
    // Ordered by the bigint id (ORDER BY id would sort the text column of the same name: '10' < '9').
    `SELECT e.id::text AS id, e.type, e.sync_id, e.source_id, e.payload FROM events e
      ${type ? 'WHERE e.type = $1' : ''} ORDER BY e.id`,
    type ? [type] : [],
  );
  return r.rows;
}

/** The statuses reported by the sync's lifecycle events, in order. */
export async function lifecycle(h: Harness, syncId: string): Promise<string[]> {
  return (await events(h, 'sync_lifecycle')).filter((e) => e.sync_id === syncId).map((e) => String(e.payload.status));
}

/** Waits until the run leaves pending/running, then checks it ended `expected` (naming its error otherwise). */
export async function waitForEnd(h: Harness, syncId: string, expected: string): Promise<void> {
  const row = await waitFor(
    `sync ${syncId} to end`,
    async () => {
      const r = await h.db.pool.query<{ status: string; error: string | null }>(
        `SELECT status, error FROM sync_runs WHERE id = $1`,
        [syncId],
      );
      const run = r.rows[0];
      return run && run.status !== 'pending' && run.status !== 'running' ? run : undefined;
    },
    SYNC_WAIT_MS,
  );
  if (row.status !== expected) throw new Error(`sync ${syncId} ended ${row.status} (${row.error ?? 'no error'})`);
}
