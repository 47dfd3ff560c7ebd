/**
 * Issue 32: lexical ranking with rarity (BM25 over each sync's term statistics, sync_search_stats) and names first
 * for qualified names: a rare term outranks a common one, rarity is that of the searched syncs, `Type.method` finds
 * that type's method first; the statistics go with their sync.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { insertSource } from '../support/fixtures.ts';
import { startGraphTestApp, type GraphTestApp } from '../support/graph-app.ts';
import { writeSyncFiles, type FileSpec } from '../support/graph-data.ts';

interface ChunkHit {
  file_path: string;
  start_line: number;
  scores: { lexical: { rank: number; score: number } | null; name: { rank: number; match: string } | null };
}

/** Files that say nothing the queries ask for: they make the corpus large enough for "common" to mean something. */
const filler = (dir: string, n: number): FileSpec[] =>
  Array.from({ length: n }, (_, i) => ({ path: `${dir}/f${i}.go`, text: `x${i} := compute${i}(y${i})\n` }));

describe('graph component: ranking with rarity, qualified names', () => {
  let app: GraphTestApp;
  let plain: string;
  let reverse: string;
  let plainSync: string;
  const chunks = (qs: string) => app.get<{ items: ChunkHit[] }>(`/api/graph/search/chunks?${qs}`);

  before(async () => {
    app = await startGraphTestApp();
    plain = await insertSource(app.db.pool, 'acme', 'plain');
    reverse = await insertSource(app.db.pool, 'acme', 'reverse');
    // "reader" in four chunks (three times each), "buffered" in one (once): without rarity the repeated word wins.
    ({ syncId: plainSync } = await writeSyncFiles(app.db.pool, plain, [
      { path: 'lib/pump.go', text: 'buffered := pump(src)\n' },
      ...[0, 1, 2, 3].map((i) => ({ path: `lib/r${i}.go`, text: `reader reader reader${'\n'}` })),
      ...filler('gen', 100),
    ]));
    // The same words the other way round in another source.
    await writeSyncFiles(app.db.pool, reverse, [
      { path: 'lib/pump.go', text: 'reader := pump(src)\n' },
      ...[0, 1, 2, 3].map((i) => ({ path: `lib/b${i}.go`, text: `buffered buffered buffered${'\n'}` })),
      ...filler('gen', 100),
    ]);
    const methods = [
      'package bufio',
      '',
      'func (b *Reader) Read(p []byte) (int, error) {',
      '\treturn b.fill(p)',
      '}',
      '',
      '// ReadWriter stores pointers to a Reader and a Writer.',
      'func (rw *ReadWriter) Read(p []byte) (int, error) {',
      '\treturn rw.Reader.Read(p)',
      '}',
    ];
    await writeSyncFiles(app.db.pool, plain, [
      {
        path: 'bufio/bufio.go',
        language: 'go',
        text: methods.join('\n') + '\n',
        symbols: [
          { name: 'Read', kind: 'method', line: 3, key: 'Reader.Read:method', symbol_kind: 'method' },
          { name: 'Read', kind: 'method', line: 8, key: 'ReadWriter.Read:method', symbol_kind: 'method' },
        ],
        chunks: [
          { start: 1, end: 5, body: methods.slice(0, 5).join('\n'), chunk_type: 'function', symbols: ['Read'] },
          { start: 7, end: 10, body: methods.slice(6).join('\n'), chunk_type: 'function', symbols: ['Read'] },
        ],
      },
      ...filler('gen', 3),
    ]);
  });
  after(() => app.close());

  it('a rare term outranks a common one repeated (BM25 over the sync statistics)', async () => {
    const res = await chunks(`mode=lexical&source_id=${plain}&sync_ids=${plainSync}&q=buffered%20reader`);
    assert.equal(res.status, 200);
    const paths = res.body.items.map((h) => h.file_path);
    assert.equal(paths[0], 'lib/pump.go', JSON.stringify(paths));
    assert.deepEqual(paths.slice(1, 5).sort(), ['lib/r0.go', 'lib/r1.go', 'lib/r2.go', 'lib/r3.go']);
    assert.ok(res.body.items[0]!.scores.lexical!.score > res.body.items[1]!.scores.lexical!.score);
  });

  it('rarity is that of the searched source: the same words rank the other way in the other source', async () => {
    const res = await chunks(`mode=lexical&source_id=${reverse}&q=buffered%20reader`);
    const paths = res.body.items.map((h) => h.file_path);
    assert.equal(paths[0], 'lib/pump.go', JSON.stringify(paths));
    assert.deepEqual(paths.slice(1, 5).sort(), ['lib/b0.go', 'lib/b1.go', 'lib/b2.go', 'lib/b3.go']);
  });

  it('a qualified method name puts that type’s method first, in chunk search', async () => {
    for (const [q, line] of [
      ['Reader.Read', 1],
      ['ReadWriter.Read', 7],
      ['bufio.ReadWriter.Read', 7],
    ] as const) {
      const res = await chunks(`mode=hybrid&source_id=${plain}&q=${encodeURIComponent(q)}`);
      const top = res.body.items[0]!;
      assert.deepEqual(
        [top.file_path, top.start_line, top.scores.name?.match],
        ['bufio/bufio.go', line, 'definition'],
        q,
      );
    }
  });

  it('each completed sync has its statistics, and cleaning the sync removes them', async () => {
    const row = await app.db.pool.query<{ chunks: number; terms: string[]; dfs: number[] }>(
      `SELECT chunks, terms, dfs FROM sync_search_stats WHERE sync_id = $1`,
      [plainSync],
    );
    assert.equal(row.rows[0]!.chunks, 105);
    const reader = row.rows[0]!.terms.indexOf('reader');
    assert.equal(row.rows[0]!.dfs[reader], 4);
    assert.equal(row.rows[0]!.terms.includes('buffered'), false, 'a term of one chunk is rare: not listed');
    const registered = await app.db.pool.query(
      `SELECT 1 FROM sync_graph_tables WHERE relation = 'sync_search_stats'::regclass`,
    );
    assert.equal(registered.rowCount, 1);
    const victim = await writeSyncFiles(app.db.pool, plain, [{ path: 'gone.go', text: 'gone()\n' }]);
    await app.db.pool.query(`SELECT delete_sync_graph($1)`, [victim.syncId]);
    const left = await app.db.pool.query(`SELECT 1 FROM sync_search_stats WHERE sync_id = $1`, [victim.syncId]);
    assert.equal(left.rowCount, 0);
  });
});
