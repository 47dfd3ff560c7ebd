import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createEventsPool } from '../../gateway/events/store.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';

// The planner overestimates rows on AGE's label tables by orders of magnitude; with JIT on, a node detail read of
// ~2 ms spent ~40 ms compiling (issue 18). Every pool the service opens must run its sessions with jit off.
describe('database session settings', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(async () => {
    await db.drop();
  });

  it('the shared pool runs every session with jit off and AGE loaded', async () => {
    const clients = await Promise.all([db.pool.connect(), db.pool.connect()]);
    try {
      for (const c of clients) {
        assert.equal((await c.query<{ jit: string }>('SHOW jit')).rows[0]!.jit, 'off');
        assert.match((await c.query<{ search_path: string }>('SHOW search_path')).rows[0]!.search_path, /ag_catalog/);
      }
    } finally {
      for (const c of clients) c.release();
    }
  });

  it("the gateway's events pool runs with jit off besides its own settings", async () => {
    const pool = createEventsPool(db.url, 1);
    try {
      const row = (
        await pool.query<{ jit: string; tz: string; bitmap: string }>(
          `SELECT current_setting('jit') AS jit, current_setting('TimeZone') AS tz,
                  current_setting('enable_bitmapscan') AS bitmap`,
        )
      ).rows[0]!;
      assert.deepEqual(row, { jit: 'off', tz: 'UTC', bitmap: 'off' });
    } finally {
      await pool.end();
    }
  });
});
