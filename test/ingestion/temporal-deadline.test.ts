/**
 * A Temporal server that accepts connections and never answers (a hung frontend, a half-open proxy): every request of
 * the ingestion component that calls Temporal must still end, with 503, by its deadline, and leave the run failed —
 * not hold the request and its database connection forever (the SDK sets no gRPC deadline by default).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Client, Connection } from '@temporalio/client';
import { createLogger } from '../../lib/log.ts';
import { createApp } from '../../temporal/ingestion/app.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { insertSource } from '../support/fixtures.ts';

const DEADLINE_MS = 1500;

describe('ingestion: Temporal calls have a deadline', () => {
  let db: TestDatabase;
  let blackhole: NetServer;
  const sockets: Socket[] = [];
  let connection: Connection;
  let server: Server;
  let url: string;
  const logs: Array<Record<string, unknown>> = [];

  before(async () => {
    db = await createTestDatabase();
    blackhole = createServer((socket) => {
      sockets.push(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => blackhole.listen(0, '127.0.0.1', resolve));
    connection = Connection.lazy({ address: `127.0.0.1:${(blackhole.address() as AddressInfo).port}` });
    const temporal = new Client({ connection, namespace: 'default' });
    const app = createApp({
      pool: db.pool,
      temporal,
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
    server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => blackhole.close(() => resolve()));
    await connection.close().catch(() => undefined);
    await db.drop();
  });

  it('POST /api/syncs answers 503 by the deadline and the run is failed, not left pending', async () => {
    const sourceId = await insertSource(db.pool);
    const started = Date.now();
    const res = await fetch(`${url}/api/syncs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ source_id: sourceId }),
      signal: AbortSignal.timeout(20_000),
    });
    const elapsed = Date.now() - started;
    const body = (await res.json()) as { error?: { code?: string } };
    assert.equal(res.status, 503, JSON.stringify(body));
    assert.ok(elapsed >= DEADLINE_MS - 100 && elapsed < 15_000, `answered after ${elapsed} ms`);
    const runs = await db.pool.query<{ status: string; error: string | null }>(
      `SELECT status, error FROM sync_runs WHERE source_id = $1`,
      [sourceId],
    );
    assert.deepEqual(
      runs.rows.map((r) => r.status),
      ['failed'],
    );
    assert.match(runs.rows[0]!.error ?? '', /could not start the sync workflow/);
    // Reported, not swallowed: the start failure and the 503.
    assert.ok(logs.some((l) => l.event === 'sync_start_failed' && l.source_id === sourceId));
    assert.ok(logs.some((l) => l.event === 'request_failed' && l.status === 503));
  });
});
