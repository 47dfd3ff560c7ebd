import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { withTransaction } from '../../lib/db.ts';
import { EVENT_CHANNEL, writeEvent } from '../../lib/events.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';

describe('event writer', () => {
  let db: TestDatabase;
  let listener: pg.Client;
  const heard: string[] = [];
  before(async () => {
    db = await createTestDatabase();
    listener = new pg.Client({ connectionString: db.url });
    await listener.connect();
    listener.on('notification', (n) => {
      if (n.channel === EVENT_CHANNEL && n.payload) heard.push(n.payload);
    });
    await listener.query(`LISTEN ${EVENT_CHANNEL}`);
  });
  after(async () => {
    await listener.end();
    await db.drop();
  });

  async function settle(): Promise<void> {
    // A round trip on the listener's own connection delivers any notification already queued for it.
    await listener.query('SELECT 1');
  }

  it('inserts the row and notifies its id, in the caller transaction', async () => {
    heard.length = 0;
    const id = await withTransaction(db.pool, async (c) => {
      const id = await writeEvent(c, { type: 'sync_lifecycle', payload: { status: 'running' } });
      await settle();
      assert.deepEqual(heard, [], 'nothing is heard before commit');
      return id;
    });
    await settle();
    assert.deepEqual(heard, [id]);
    const row = (await db.pool.query('SELECT * FROM events WHERE id = $1', [id])).rows[0] as Record<string, unknown>;
    assert.equal(row.type, 'sync_lifecycle');
    assert.deepEqual(row.payload, { status: 'running' });
  });

  it('a rolled-back transaction leaves neither row nor notification', async () => {
    heard.length = 0;
    const before = Number((await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM events')).rows[0]!.n);
    await assert.rejects(
      withTransaction(db.pool, async (c) => {
        await writeEvent(c, { type: 'sync_progress', payload: { done: 1 } });
        throw new Error('abort');
      }),
      /abort/,
    );
    await settle();
    assert.deepEqual(heard, []);
    assert.equal(Number((await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM events')).rows[0]!.n), before);
  });

  it('ids increase monotonically', async () => {
    const ids: bigint[] = [];
    for (let i = 0; i < 5; i++) ids.push(BigInt(await writeEvent(db.pool, { type: 'source_changed', payload: { i } })));
    for (let i = 1; i < ids.length; i++) assert.ok(ids[i]! > ids[i - 1]!);
  });
});
