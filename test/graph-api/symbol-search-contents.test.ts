/**
 * Symbol search reads symbol names once per file content (schema V20), shared by the syncs that hold the content:
 * one hit per sync all the same, each the Symbol vertex that sync's graph has; purging one sync keeps the others'
 * symbols; a content no sync holds any more takes its symbol rows with it; a sync's Symbol vertices go with it
 * (found through its File vertices' defines edges).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadGraphLabels, writeReusedFileRecords, writeReusedGraph } from '../../activities/store/index.ts';
import { insertSource } from '../support/fixtures.ts';
import { startGraphTestApp, type GraphTestApp } from '../support/graph-app.ts';
import { createSyncRow, writeSyncFiles } from '../support/graph-data.ts';
import type { SymbolHit as Hit } from '../../graph-api/search/symbols.ts';

interface Body {
  items: Hit[];
  next_cursor: string | null;
}

describe('graph component: symbol search over shared contents', () => {
  let app: GraphTestApp;
  let src: string;
  let first: string;
  let second: string;
  let firstIds: Map<string, string>;
  let secondIds: Map<string, string>;
  const search = (qs: string) => app.get<Body>(`/api/graph/search/symbols?source_id=${src}&${qs}`);
  const symbolRows = async (name: string) =>
    Number(
      (
        await app.db.pool.query<{ n: string }>(
          `SELECT count(*) AS n FROM file_content_symbols k JOIN file_contents c ON c.id = k.content_id
            WHERE c.source_id = $1 AND k.name = $2`,
          [src, name],
        )
      ).rows[0]!.n,
    );
  /** symbol_id of every Symbol vertex of a sync (read by the vertices' own sync_id, not through the search). */
  const vertexSymbolIds = async (syncId: string) =>
    (
      await app.db.pool.query<{ id: string }>(
        `SELECT ag_catalog.agtype_access_operator(properties, '"symbol_id"'::ag_catalog.agtype)::text AS id
           FROM service."Symbol"
          WHERE ag_catalog.agtype_access_operator(properties, '"sync_id"'::ag_catalog.agtype) = $1::ag_catalog.agtype`,
        [JSON.stringify(syncId)],
      )
    ).rows
      .map((r) => r.id)
      .sort();

  before(async () => {
    app = await startGraphTestApp();
    src = await insertSource(app.db.pool);
    ({ syncId: first, ids: firstIds } = await writeSyncFiles(
      app.db.pool,
      src,
      [
        {
          path: 'lib/shared.go',
          language: 'go',
          symbols: [
            { name: 'AlphaShared', kind: 'function', line: 3 },
            { name: 'BetaShared', kind: 'class', line: 9 },
          ],
        },
        { path: 'lib/only.go', language: 'go', symbols: [{ name: 'GammaOnly', kind: 'function', line: 4 }] },
      ],
      { minutesAgo: 20 },
    ));
    // The second sync: lib/new.go is new (written whole, graph included), lib/only.go is gone, and lib/shared.go's
    // content and graph are reused as an incremental sync does.
    second = await createSyncRow(app.db.pool, src, { minutesAgo: 10 });
    ({ ids: secondIds } = await writeSyncFiles(
      app.db.pool,
      src,
      [{ path: 'lib/new.go', language: 'go', symbols: [{ name: 'DeltaNew', kind: 'function', line: 2 }] }],
      { syncId: second },
    ));
    const content = await app.db.pool.query<{ content_id: string }>(
      `SELECT content_id FROM sync_files WHERE sync_id = $1 AND file_path = 'lib/shared.go'`,
      [first],
    );
    const reused = await writeReusedFileRecords(app.db.pool, { syncId: second, sourceId: src }, [
      {
        file_path: 'lib/shared.go',
        content_id: content.rows[0]!.content_id,
        description: null,
        description_generated_at: null,
      },
    ]);
    const copy = await writeReusedGraph(
      app.db.pool,
      { syncId: second, sourceId: src },
      reused.ids,
      await loadGraphLabels(app.db.pool),
    );
    assert.equal(copy.symbolVertices, 2);
    secondIds.set('lib/shared.go', reused.ids.get('lib/shared.go')!);
  });
  after(() => app.close());

  it('a content shared by two syncs has its symbols stored once and gives one hit per sync', async () => {
    assert.equal(await symbolRows('AlphaShared'), 1);
    const res = await search(`q=alphashared&match=exact&sync_ids=${first},${second}`);
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.items.map((h) => [h.sync_id, h.file_id, h.symbol_id, h.kind, h.line]).sort(),
      [
        [first, firstIds.get('lib/shared.go'), `${firstIds.get('lib/shared.go')}:AlphaShared:3`, 'function', 3],
        [second, secondIds.get('lib/shared.go'), `${secondIds.get('lib/shared.go')}:AlphaShared:3`, 'function', 3],
      ].sort(),
    );
  });

  it("each sync's hits are the Symbol vertices its graph has", async () => {
    for (const syncId of [first, second]) {
      const hits: Hit[] = [];
      for (const q of ['a', 'b', 'd', 'g']) {
        hits.push(...(await search(`q=${q}&match=prefix&sync_ids=${syncId}&limit=100`)).body.items);
      }
      assert.deepEqual(hits.map((h) => h.symbol_id).sort(), await vertexSymbolIds(syncId));
    }
  });

  it("V20's backfill rebuilds the same rows from the Symbol vertices", async () => {
    const rows = async (db: Pick<typeof app.db.pool, 'query'>) =>
      (
        await db.query<{ r: string }>(
          `SELECT concat_ws(' ', k.content_id, k.name, k.kind, k.line) AS r
             FROM file_content_symbols k JOIN file_contents c ON c.id = k.content_id WHERE c.source_id = $1`,
          [src],
        )
      ).rows
        .map((x) => x.r)
        .sort();
    const written = await rows(app.db.pool);
    assert.equal(written.length, 4);
    const sql = readFileSync(new URL('../../schema/migrations/V20__content_symbols.sql', import.meta.url), 'utf8');
    const backfill = sql.slice(sql.indexOf('WITH v AS ('), sql.indexOf(';', sql.indexOf('WITH v AS (')));
    const client = await app.db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`DELETE FROM file_content_symbols`);
      await client.query(backfill);
      assert.deepEqual(await rows(client), written);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it('the default sync is the newest completed one: its own symbols, not the older sync removed ones', async () => {
    const res = await search('q=gammaonly');
    assert.deepEqual(res.body.items, []);
    const older = await search(`q=gammaonly&sync_ids=${first}`);
    assert.deepEqual(
      older.body.items.map((h) => h.file_path),
      ['lib/only.go'],
    );
  });

  it('a cleaned sync (graph removed) has no symbols', async () => {
    const other = await createSyncRow(app.db.pool, src, { minutesAgo: 30 });
    await writeSyncFiles(
      app.db.pool,
      src,
      [{ path: 'lib/cleaned.go', language: 'go', symbols: [{ name: 'EpsilonCleaned', kind: 'function', line: 1 }] }],
      { syncId: other },
    );
    assert.equal((await search(`q=epsiloncleaned&sync_ids=${other}`)).body.items.length, 1);
    await app.db.pool.query(`UPDATE sync_runs SET status = 'cleaned' WHERE id = $1`, [other]);
    await app.db.pool.query(`SELECT delete_sync_graph($1)`, [other]);
    assert.deepEqual((await search(`q=epsiloncleaned&sync_ids=${other}`)).body.items, []);
    assert.deepEqual(await vertexSymbolIds(other), []);
  });

  it("purging a sync keeps the other's symbols searchable and drops the contents only it held", async () => {
    await app.db.pool.query(`DELETE FROM sync_runs WHERE id = $1`, [first]);
    assert.deepEqual(await vertexSymbolIds(first), []);
    assert.equal((await vertexSymbolIds(second)).length, 3);
    const res = await search('q=alphashared&match=exact');
    assert.deepEqual(
      res.body.items.map((h) => [h.sync_id, h.symbol_id]),
      [[second, `${secondIds.get('lib/shared.go')}:AlphaShared:3`]],
    );
    assert.equal(await symbolRows('AlphaShared'), 1);
    assert.equal(await symbolRows('GammaOnly'), 0);
  });

  it('a removed content takes its symbol rows with it', async () => {
    await app.db.pool.query(`DELETE FROM sync_runs WHERE id = $1`, [second]);
    assert.equal(await symbolRows('AlphaShared'), 0);
    assert.equal(await symbolRows('DeltaNew'), 0);
    assert.deepEqual(await vertexSymbolIds(second), []);
  });
});
