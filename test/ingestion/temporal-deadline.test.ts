/**
 * Temporal unreachable: a Temporal-backed write must answer 503 with Retry-After within a few seconds and commit
 * nothing (temporal-gate.ts: one getSystemInfo under TEMPORAL_CONNECT_TIMEOUT_MS, default 3 s), not after the
 * client's ~20 s of connect retries; and a Temporal that stops answering after that check must still end the request
 * by its gRPC deadline (the SDK sets none by default) and leave the run it committed failed with the reason. The real
 * Temporal server is reached through a TCP relay that can stall (accepts connections, passes no byte: a hung frontend,
 * a half-open proxy); the other case is a closed port.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import pg from 'pg';
import { Client, Connection } from '@temporalio/client';
import { createLogger } from '../../lib/log.ts';
import { createApp } from '../../temporal/ingestion/app.ts';
import { createTestDatabase, waitForLockWait, type TestDatabase } from '../support/db.ts';
import { testEnv } from '../support/env.ts';
import { insertSource } from '../support/fixtures.ts';
import { TcpRelay } from '../support/tcp-relay.ts';

const DEADLINE_MS = 3000;
/** The default connect bound is 3 s; the old behaviour (connect retries) took ~20 s. Loose for a busy machine. */
const FAST_MS = 8000;

interface Answer {
  status: number;
  elapsed: number;
  retryAfter: string | null;
  body: { error?: { code?: string } };
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

describe('ingestion: Temporal-backed writes when Temporal is unreachable', () => {
  let db: TestDatabase;
  let relay: TcpRelay;
  const connections: Connection[] = [];
  const servers: Server[] = [];
  let viaRelay: string;
  let closedPort: string;
  const logs: Array<Record<string, unknown>> = [];

  async function startApp(address: string): Promise<string> {
    const connection = Connection.lazy({ address });
    connections.push(connection);
    const app = createApp({
      pool: db.pool,
      temporal: new Client({ connection, namespace: testEnv.temporalNamespace }),
      log: createLogger('ingestion', {
        level: 'info',
        write: (line) => logs.push(JSON.parse(line) as Record<string, unknown>),
      }),
      settings: {
        taskQueue: 'deadline-test',
        scheduleIdPrefix: 'sched-',
        cancelWaitMs: 0,
        stopTimeoutMs: 0,
        startConflictWaitMs: 0,
        temporalCallTimeoutMs: DEADLINE_MS,
      },
    });
    const server = app.listen(0, '127.0.0.1');
    servers.push(server);
    await new Promise<void>((resolve) => server.once('listening', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  before(async () => {
    db = await createTestDatabase();
    relay = TcpRelay.to(testEnv.temporalAddress);
    await relay.up();
    viaRelay = await startApp(relay.address);
    closedPort = await startApp(`127.0.0.1:${await freePort()}`);
  });

  after(async () => {
    for (const s of servers) await new Promise<void>((resolve) => s.close(() => resolve()));
    await relay.down();
    for (const c of connections) await c.close().catch(() => undefined);
    await db.drop();
  });

  async function postSync(url: string, sourceId: string): Promise<Answer> {
    const started = Date.now();
    const res = await fetch(`${url}/api/syncs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ source_id: sourceId }),
      signal: AbortSignal.timeout(60_000),
    });
    const body = (await res.json()) as Answer['body'];
    return { status: res.status, elapsed: Date.now() - started, retryAfter: res.headers.get('retry-after'), body };
  }

  function assertFast503(a: Answer): void {
    assert.equal(a.status, 503, JSON.stringify(a.body));
    assert.equal(a.body.error?.code, 'UPSTREAM_UNAVAILABLE');
    assert.match(a.retryAfter ?? '', /^[1-9]\d*$/);
    assert.ok(a.elapsed < FAST_MS, `answered after ${a.elapsed} ms`);
  }

  async function runs(sourceId: string): Promise<Array<{ status: string; error: string | null }>> {
    const r = await db.pool.query<{ status: string; error: string | null }>(
      `SELECT status, error FROM sync_runs WHERE source_id = $1`,
      [sourceId],
    );
    return r.rows;
  }

  it('Temporal stops answering after the check: 503 by the deadline, and the committed run is failed with the reason', async () => {
    const sourceId = await insertSource(db.pool);
    // Hold the source row so the request stops in its transaction, after its Temporal check passed; stall Temporal,
    // then let the request go on: its workflow start now waits on the stalled relay.
    const locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    let answer: Promise<Answer> | undefined;
    try {
      await locker.query('BEGIN');
      await locker.query('SELECT 1 FROM sources WHERE id = $1 FOR UPDATE', [sourceId]);
      answer = postSync(viaRelay, sourceId);
      await waitForLockWait(db.pool, 'true', 'the request never reached the source lock');
      relay.stall();
      await locker.query('COMMIT');
    } finally {
      await locker.end();
    }
    const a = await answer;
    relay.resume();
    assert.equal(a.status, 503, JSON.stringify(a.body));
    assert.match(a.retryAfter ?? '', /^[1-9]\d*$/);
    assert.ok(a.elapsed >= DEADLINE_MS - 100 && a.elapsed < 20_000, `answered after ${a.elapsed} ms`);
    const rows = await runs(sourceId);
    assert.deepEqual(
      rows.map((r) => r.status),
      ['failed'],
    );
    assert.match(rows[0]!.error ?? '', /could not start the sync workflow/);
    // Reported, not swallowed: the start failure and the 503.
    assert.ok(logs.some((l) => l.event === 'sync_start_failed' && l.source_id === sourceId));
    assert.ok(logs.some((l) => l.event === 'request_failed' && l.status === 503));
  });

  it('Temporal stalled: POST /api/syncs is 503 with Retry-After within a few seconds and commits no run', async () => {
    const sourceId = await insertSource(db.pool);
    relay.stall();
    try {
      assertFast503(await postSync(viaRelay, sourceId));
      // Remembered for a moment: the next write does not wait again.
      const again = await postSync(viaRelay, sourceId);
      assertFast503(again);
      assert.ok(again.elapsed < 1500, `the second answer took ${again.elapsed} ms`);
    } finally {
      relay.resume();
    }
    assert.deepEqual(await runs(sourceId), []);
  });

  it('Temporal port closed: POST /api/syncs and a schedule write are 503 within a few seconds, nothing committed', async () => {
    const sourceId = await insertSource(db.pool);
    assertFast503(await postSync(closedPort, sourceId));
    assert.deepEqual(await runs(sourceId), []);
    const started = Date.now();
    const res = await fetch(`${closedPort}/api/schedules`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ source_id: sourceId, interval_minutes: 60 }),
      signal: AbortSignal.timeout(60_000),
    });
    assert.equal(res.status, 503);
    assert.ok(res.headers.get('retry-after'));
    assert.ok(Date.now() - started < FAST_MS);
    const schedules = await db.pool.query(`SELECT 1 FROM schedules WHERE source_id = $1`, [sourceId]);
    assert.equal(schedules.rowCount, 0);
  });
});
