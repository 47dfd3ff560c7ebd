// The sync worker's process entry (temporal/worker-main.ts) on the real Temporal server: worker_started, a clean
// stop on SIGTERM (worker_stopping, worker_stopped, exit 0); a bad variable is worker_failed naming it, exit 1.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { testEnv } from '../support/env.ts';
import { uniqueTaskQueue } from '../support/temporal.ts';
import { runEntry } from '../standins/helpers.ts';

describe('temporal/worker-main.ts', () => {
  let db: TestDatabase;
  let cloneDir: string;
  before(async () => {
    db = await createTestDatabase();
    cloneDir = mkdtempSync(join(tmpdir(), 'ckg-worker-main-'));
  });
  after(async () => {
    await db.drop();
    rmSync(cloneDir, { recursive: true, force: true });
  });

  const env = () => ({
    DATABASE_URL: db.url,
    TEMPORAL_ADDRESS: testEnv.temporalAddress,
    TEMPORAL_NAMESPACE: testEnv.temporalNamespace,
    TEMPORAL_TASK_QUEUE: uniqueTaskQueue('worker-main'),
    WORKER_CLONE_DIR: cloneDir,
    LOG_LEVEL: 'info',
    METRICS_PORT: '0',
  });

  it('starts (worker_started) and stops cleanly on SIGTERM', async () => {
    const p = runEntry('temporal/worker-main.ts', env());
    const started = await p.waitFor('worker_started', 120_000);
    assert.equal(started.pid, p.child.pid);
    // The operators' port: liveness, readiness (polling, database, Temporal) and the metrics.
    const ops = `http://127.0.0.1:${String(started.metrics_port)}`;
    assert.deepEqual(await (await fetch(`${ops}/health`)).json(), { status: 'ok' });
    const ready = await fetch(`${ops}/ready`);
    assert.equal(ready.status, 200);
    assert.deepEqual(await ready.json(), {
      status: 'ready',
      checks: { worker: 'ok', database: 'ok', temporal: 'ok' },
    });
    const metrics = await (await fetch(`${ops}/metrics`)).text();
    assert.match(metrics, /^ckg_ready_check_up\{check="temporal"\} 1$/m);
    assert.match(metrics, /^ckg_db_pool_connections\{pool="ckg-worker",state="idle"\} \d+$/m);
    assert.equal(await p.stop(), 0);
    const events = p.lines.map((l) => l.event);
    assert.deepEqual(events.slice(events.indexOf('worker_stopping')), ['worker_stopping', 'worker_stopped']);
  });

  it('a bad variable: worker_failed naming it, exit 1', async () => {
    const p = runEntry('temporal/worker-main.ts', { ...env(), EMBEDDING_BATCH_SIZE: 'lots' });
    assert.equal(await p.exited, 1);
    assert.match(JSON.stringify(p.lines.find((l) => l.event === 'worker_failed')?.error), /EMBEDDING_BATCH_SIZE/);
  });
});
