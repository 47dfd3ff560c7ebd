/**
 * Issue 10 regressions: Temporal and the database never disagree for long. An operator who pressed Terminate on a
 * running sync workflow left the run `running` forever and every later POST /api/syncs of its source 409; a run whose
 * workflow never started stayed pending. The reconciler ends such runs `failed` with a reason and its lifecycle event,
 * at the next sync request of the source and in a periodic pass.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { insertSource, insertSync } from '../support/fixtures.ts';
import {
  events,
  startHarness,
  syncStatus,
  waitForEnd,
  waitForStatus,
  type Harness,
} from '../support/ingestion/harness.ts';
import { reconcileAll } from '../../temporal/ingestion/syncs/reconcile.ts';
import type { Sync } from '../../lib/api/schemas.ts';

describe('reliability: the reconciler', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ reconcileGraceMs: 1000 });
  });
  afterEach(() => h.releaseSyncs());
  after(async () => {
    await h.close();
  });

  const lifecycleOf = async (syncId: string) =>
    (await events(h, 'sync_lifecycle')).filter((e) => e.sync_id === syncId).map((e) => e.payload);

  async function slowSource(): Promise<string> {
    const id = await insertSource(h.db.pool);
    await h.db.pool.query(`UPDATE sources SET url = $2 WHERE id = $1`, [id, h.repos.slow.dir]);
    return id;
  }

  it('a workflow terminated in Temporal: the next sync request ends the run cancelled with the reason and goes on', async () => {
    h.holdSyncs();
    const sourceId = await slowSource();
    const first = await h.api<Sync>('POST', '/api/syncs', { source_id: sourceId, triggered_by: 'alice' });
    assert.equal(first.status, 201);
    await waitForStatus(h, first.body.id, 'running');
    await h.client.workflow.getHandle(sourceId).terminate('operator pressed Terminate');
    assert.equal(await syncStatus(h, first.body.id), 'running', 'nothing recorded the termination');

    const second = await h.api<Sync>('POST', '/api/syncs', { source_id: sourceId, triggered_by: 'bob' });
    assert.equal(second.status, 201, JSON.stringify(second.body));
    const old = await h.db.pool.query<{ status: string; error: string }>(
      `SELECT status, error FROM sync_runs WHERE id = $1`,
      [first.body.id],
    );
    assert.equal(old.rows[0]!.status, 'cancelled');
    assert.match(old.rows[0]!.error, /^terminated in Temporal by .*: operator pressed Terminate$/);
    const ended = await lifecycleOf(first.body.id);
    assert.ok(
      ended.some(
        (e) => e.status === 'cancelled' && e.previous_status === 'running' && /terminated/.test(String(e.error)),
      ),
      JSON.stringify(ended),
    );
    h.releaseSyncs();
    await waitForEnd(h, second.body.id, 'completed');
  });

  it('a periodic pass ends a run whose workflow never started, and leaves a young one and a running one alone', async () => {
    const orphan = await insertSource(h.db.pool);
    const orphanRun = await insertSync(h.db.pool, orphan, 'pending');
    await h.db.pool.query(`UPDATE sync_runs SET created_at = now() - interval '1 hour' WHERE id = $1`, [orphanRun]);
    const young = await insertSource(h.db.pool);
    const youngRun = await insertSync(h.db.pool, young, 'pending');

    h.holdSyncs();
    const live = await slowSource();
    const liveRun = await h.api<Sync>('POST', '/api/syncs', { source_id: live, triggered_by: 'alice' });
    await waitForStatus(h, liveRun.body.id, 'running');
    await h.db.pool.query(`UPDATE sync_runs SET created_at = now() - interval '1 hour' WHERE id = $1`, [
      liveRun.body.id,
    ]);

    // The pass's grace (60 s) keeps the young run; the orphan and the live run are an hour old.
    assert.equal(await reconcileAll(h.deps, 60_000), 1);
    assert.equal(await syncStatus(h, orphanRun), 'failed');
    assert.equal(await syncStatus(h, youngRun), 'pending');
    assert.equal(await syncStatus(h, liveRun.body.id), 'running');
    const e = await lifecycleOf(orphanRun);
    assert.ok(e.some((x) => x.status === 'failed' && /no workflow execution exists/.test(String(x.error))));
    // The source is no longer blocked.
    await h.db.pool.query(`UPDATE sources SET url = $2 WHERE id = $1`, [orphan, h.repos.small.dir]);
    const next = await h.api<Sync>('POST', '/api/syncs', { source_id: orphan, triggered_by: 'carol' });
    assert.equal(next.status, 201);
    h.releaseSyncs();
    await waitForEnd(h, next.body.id, 'completed');
    await waitForEnd(h, liveRun.body.id, 'completed');
  });
});
