/**
 * Everything an ingestion test needs, all real: a migrated database of its own, the Temporal dev server with a
 * worker on a task queue of its own (the real trigger workflow and its activities, plus the stand-in syncWorkflow),
 * and the ingestion app listening on a free port, spoken to over HTTP.
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Client } from '@temporalio/client';
import { Worker, type NativeConnection } from '@temporalio/worker';
import { createLogger, type Logger } from '../../../lib/log.ts';
import { createScheduleActivities } from '../../../activities/schedule/index.ts';
import { bundlerOptions } from '../../../temporal/bundler.ts';
import { createApp } from '../../../temporal/ingestion/app.ts';
import type { IngestionDeps, IngestionSettings } from '../../../temporal/ingestion/deps.ts';
import { createTestDatabase, type TestDatabase } from '../db.ts';
import { testEnv } from '../env.ts';
import { connectClient, connectWorker, uniqueTaskQueue } from '../temporal.ts';
import { createStandinSyncActivities } from './standin-activities.ts';

export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  body: T;
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
  api<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<ApiResponse<T>>;
  /** Raw request: the body is sent as given (for malformed JSON). */
  raw(method: string, path: string, body: string, contentType?: string): Promise<ApiResponse>;
  close(): Promise<void>;
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
  const worker = await Worker.create({
    connection,
    namespace: testEnv.temporalNamespace,
    taskQueue,
    workflowsPath: fileURLToPath(new URL('../workflows/ingestion.ts', import.meta.url)),
    activities: { ...createScheduleActivities({ pool: db.pool, log }), ...createStandinSyncActivities(db.pool) },
    bundlerOptions,
  });
  const running = worker.run();
  const settings: IngestionSettings = {
    taskQueue,
    scheduleIdPrefix: `sched-test-${randomBytes(4).toString('hex')}-`,
    cancelWaitMs: 3000,
    stopTimeoutMs: 3000,
    startConflictWaitMs: 2000,
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

  return {
    db,
    client,
    taskQueue,
    settings,
    url,
    logs,
    deps,
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
      worker.shutdown();
      await running;
      await connection.close();
      await closeClient();
      await db.drop();
    },
  };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `fn` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 15_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}

export async function syncStatus(h: Harness, syncId: string): Promise<string | undefined> {
  const r = await h.db.pool.query<{ status: string }>(`SELECT status FROM sync_runs WHERE id = $1`, [syncId]);
  return r.rows[0]?.status;
}

export async function waitForStatus(h: Harness, syncId: string, status: string, timeoutMs = 15_000): Promise<void> {
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
    `SELECT id::text, type, sync_id, source_id, payload FROM events ${type ? 'WHERE type = $1' : ''} ORDER BY id`,
    type ? [type] : [],
  );
  return r.rows;
}

/** The statuses reported by the sync's lifecycle events, in order. */
export async function lifecycle(h: Harness, syncId: string): Promise<string[]> {
  return (await events(h, 'sync_lifecycle')).filter((e) => e.sync_id === syncId).map((e) => String(e.payload.status));
}

/** Ends the stand-in workflow's current run with `status`. */
export async function finishStandin(
  h: Harness,
  sourceId: string,
  status: 'completed' | 'failed',
  error?: string,
): Promise<void> {
  await h.client.workflow.getHandle(sourceId).signal('standin_finish', { status, ...(error ? { error } : {}) });
}
