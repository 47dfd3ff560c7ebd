import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadRun } from '../../lib/sync-runs/index.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { insertSource, insertSync } from '../support/fixtures.ts';

/**
 * A step's claim of its run (loadRun with the lock) must not wait for another transaction that only wrote rows
 * referencing the run (a batch write in progress: its foreign-key checks hold FOR KEY SHARE on the run), and must
 * still exclude a concurrent status change.
 */
describe('the run lock of the sync steps', () => {
  let db: TestDatabase;
  let sourceId: string;
  let syncId: string;
  before(async () => {
    db = await createTestDatabase();
    sourceId = await insertSource(db.pool);
    syncId = await insertSync(db.pool, sourceId, 'running');
  });
  after(async () => {
    await db.drop();
  });

  it('does not wait for an open transaction that inserted rows referencing the run', async () => {
    const writer = await db.pool.connect();
    const claimer = await db.pool.connect();
    try {
      await writer.query('BEGIN');
      await writer.query(`INSERT INTO sync_steps (sync_id, step, result) VALUES ($1, 'write 0000', '{}')`, [syncId]);
      await claimer.query('BEGIN');
      await claimer.query(`SET LOCAL lock_timeout = '2s'`);
      const run = await loadRun(claimer, syncId, true);
      assert.equal(run?.status, 'running');
      await claimer.query('COMMIT');
    } finally {
      await claimer.query('ROLLBACK').catch(() => undefined);
      await writer.query('ROLLBACK');
      claimer.release();
      writer.release();
    }
  });

  it('still makes a concurrent status change wait until the claim ends', async () => {
    const claimer = await db.pool.connect();
    const other = await db.pool.connect();
    try {
      await claimer.query('BEGIN');
      await loadRun(claimer, syncId, true);
      await other.query('BEGIN');
      await other.query(`SET LOCAL lock_timeout = '300ms'`);
      await assert.rejects(
        other.query(`UPDATE sync_runs SET status = 'cancelled' WHERE id = $1`, [syncId]),
        /lock timeout/,
      );
      await other.query('ROLLBACK');
      await other.query('BEGIN');
      await other.query(`SET LOCAL lock_timeout = '300ms'`);
      await assert.rejects(other.query(`SELECT 1 FROM sync_runs WHERE id = $1 FOR UPDATE`, [syncId]), /lock timeout/);
    } finally {
      await other.query('ROLLBACK');
      await claimer.query('ROLLBACK');
      other.release();
      claimer.release();
    }
  });
});
