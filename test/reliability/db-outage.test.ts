/**
 * Issue 10 regression (found by bench/reliability.ts pg-crash): a PostgreSQL restart of 45 s mid-sync failed the run,
 * because each activity's attempts (1 + 2 + 4 + 8 s of backoff) ran out while the database was down. Activities
 * now wait for the database to answer before a failed attempt reaches Temporal (activities/outage.ts). Here a real
 * worker runs an activity whose database (the real PostgreSQL behind a TCP relay) is down for 3 s, with a retry
 * policy of two attempts 100 ms apart: the workflow completes on the second attempt.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { Worker, type NativeConnection } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import { databaseWasUnavailable, outlastDatabaseOutages } from '../../activities/outage.ts';
import { createPool } from '../../lib/db.ts';
import { createLogger } from '../../lib/log.ts';
import { bundlerOptions } from '../../temporal/bundler.ts';
import { testEnv } from '../support/env.ts';
import { connectClient, connectWorker, uniqueTaskQueue } from '../support/temporal.ts';
import { TcpRelay } from '../support/tcp-relay.ts';

describe('reliability: activities outlast a database outage', () => {
  let client: Client;
  let closeClient: () => Promise<void>;
  let connection: NativeConnection;
  before(async () => {
    ({ client, close: closeClient } = await connectClient());
    connection = await connectWorker();
  });
  after(async () => {
    await connection.close();
    await closeClient();
  });

  it('recognises unreachable-database errors through their causes, and nothing else', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    assert.equal(databaseWasUnavailable(refused), true);
    assert.equal(databaseWasUnavailable(new Error('write failed', { cause: refused })), true);
    assert.equal(databaseWasUnavailable(new Error('Connection terminated unexpectedly')), true);
    assert.equal(databaseWasUnavailable(Object.assign(new Error('x'), { code: '57P03' })), true);
    assert.equal(databaseWasUnavailable(Object.assign(new Error('dup'), { code: '23505' })), false);
    assert.equal(databaseWasUnavailable(new Error('CloneFailed')), false);
  });

  it('a database down costs one attempt, and the retry succeeds', async () => {
    const target = new URL(testEnv.databaseUrl);
    const relay = new TcpRelay({ host: target.hostname, port: Number(target.port || 5432) });
    await relay.up();
    const viaRelay = new URL(testEnv.databaseUrl);
    viaRelay.hostname = '127.0.0.1';
    viaRelay.port = String(relay.port);
    const pool = createPool(viaRelay.toString(), { max: 2, applicationName: 'ckg-test-outage' });
    const lines: Array<Record<string, unknown>> = [];
    // The database comes back 1.5 s after the activity starts waiting for it. Without the wait nothing brings it
    // back: both attempts fail and so does the workflow.
    let back: NodeJS.Timeout | undefined;
    const log = createLogger('worker', {
      level: 'info',
      write: (l) => {
        const line = JSON.parse(l) as Record<string, unknown>;
        lines.push(line);
        if (line.event === 'activity_database_unavailable' && !back) back = setTimeout(() => void relay.up(), 1500);
      },
    });
    let attempts = 0;
    const activities = outlastDatabaseOutages(
      {
        touch: async () => {
          attempts++;
          return Number((await pool.query<{ n: number }>('SELECT 1 AS n')).rows[0]!.n);
        },
      },
      { pool, log, waitMs: 20_000 },
    );
    const taskQueue = uniqueTaskQueue('outage');
    const worker = await Worker.create({
      connection,
      namespace: testEnv.temporalNamespace,
      taskQueue,
      workflowsPath: fileURLToPath(new URL('../support/workflows/one-activity.ts', import.meta.url)),
      activities,
      bundlerOptions,
    });
    try {
      await relay.down();
      const started = Date.now();
      const result: unknown = await worker.runUntil(
        client.workflow.execute('oneActivityWorkflow', { taskQueue, workflowId: `outage-${taskQueue}`, args: [2] }),
      );
      assert.equal(result, 1);
      assert.equal(attempts, 2, 'the first attempt failed, the second (after the wait) succeeded');
      assert.ok(Date.now() - started >= 1400, 'the attempt waited for the database');
      const waited = lines.find((l) => l.event === 'activity_database_unavailable');
      assert.equal(waited?.activity, 'touch');
      assert.equal(lines.find((l) => l.event === 'activity_database_wait_ended')?.back, true);
    } finally {
      clearTimeout(back);
      await pool.end();
      await relay.down();
    }
  });
});
