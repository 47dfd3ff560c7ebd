import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Diff, Impact } from '../../lib/api/routes/graph.ts';
import { insertSource } from '../support/fixtures.ts';
import { startGraphTestApp, type GraphTestApp } from '../support/graph-app.ts';
import { writeSyncFiles } from '../support/graph-data.ts';

type ImpactBody = Impact;
type DiffBody = Diff;

describe('graph component: impact and diff', () => {
  let app: GraphTestApp;
  let src: string;
  let other: string;
  let s1: string;
  let s2: string;
  let running: string;
  const nid = (path: string) => `src_${src}:${path}`;
  const impact = (path: string, extra = '') =>
    app.get<ImpactBody>(`/api/graph/impact?node_id=${encodeURIComponent(nid(path))}${extra}`);
  const paths = (b: ImpactBody) => b.items.map((i) => `${i.file_path}@${i.distance}`);

  before(async () => {
    app = await startGraphTestApp();
    const db = app.db.pool;
    src = await insertSource(db);
    other = await insertSource(db);
    // s1: a → b → c → d → e (a chain), x → c, cycle c → b is not there; y alone.
    ({ syncId: s1 } = await writeSyncFiles(
      db,
      src,
      [
        { path: 'a.ts', deps: [['b.ts', 1]] },
        { path: 'b.ts', deps: [['c.ts', 1]] },
        { path: 'c.ts', deps: [['d.ts', 1]] },
        { path: 'd.ts', deps: [['e.ts', 1]] },
        { path: 'e.ts' },
        { path: 'x.ts', deps: [['c.ts', 2]] },
        { path: 'gone.ts', deps: [['e.ts', 1]] },
        { path: 'same.md', type: 'doc', text: 'same\n' },
      ],
      { minutesAgo: 60 },
    ));
    // s2: gone.ts removed, new.ts added (→ a), c.ts changed, x → c removed, a → e added, a cycle e → a.
    ({ syncId: s2 } = await writeSyncFiles(
      db,
      src,
      [
        {
          path: 'a.ts',
          deps: [
            ['b.ts', 1],
            ['e.ts', 1],
          ],
        },
        { path: 'b.ts', deps: [['c.ts', 1]] },
        { path: 'c.ts', text: '// c changed\n', deps: [['d.ts', 1]] },
        { path: 'd.ts', deps: [['e.ts', 1]] },
        { path: 'e.ts', deps: [['a.ts', 1]] },
        { path: 'x.ts' },
        { path: 'new.ts', deps: [['a.ts', 1]] },
        { path: 'same.md', type: 'doc', text: 'same\n' },
      ],
      { minutesAgo: 30 },
    ));
    ({ syncId: running } = await writeSyncFiles(db, src, [{ path: 'a.ts' }], { status: 'running', minutesAgo: 1 }));
    await writeSyncFiles(db, other, [{ path: 'a.ts' }], { minutesAgo: 5 });
  });
  after(() => app.close());

  it('dependents: every file that reaches the node, with its shortest distance and via, in the latest completed sync', async () => {
    const res = await impact('d.ts', '&sync_id=' + s1);
    assert.equal(res.status, 200);
    assert.equal(res.body.sync_id, s1);
    assert.equal(res.body.direction, 'dependents');
    assert.equal(res.body.depth, 3);
    assert.deepEqual(paths(res.body), ['c.ts@1', 'b.ts@2', 'x.ts@2', 'a.ts@3']);
    assert.deepEqual(res.body.by_distance, { '1': 1, '2': 2, '3': 1 });
    assert.equal(res.body.total, 4);
    assert.equal(res.body.truncated, false);
    const a = res.body.items.find((i) => i.file_path === 'a.ts')!;
    assert.equal(a.via, nid('b.ts'));
    assert.equal(a.node_id, nid('a.ts'));
    assert.equal(a.name, 'a.ts');
    assert.equal(a.type, 'source');
    assert.equal(res.body.items[0]!.via, nid('d.ts'), 'distance 1 comes straight from the start');
  });

  it('without sync_id the newest completed sync holding the file is walked (not the running one); cycles end', async () => {
    const res = await impact('a.ts', '&depth=10');
    assert.equal(res.status, 200);
    assert.equal(res.body.sync_id, s2);
    // s2: new → a, e → a, d → e, c → d, b → c, (a → b): each once, the start never listed.
    assert.deepEqual(paths(res.body), ['e.ts@1', 'new.ts@1', 'd.ts@2', 'c.ts@3', 'b.ts@4']);
  });

  it('dependencies walks along the edges; depth bounds the walk', async () => {
    const res = await impact('a.ts', `&direction=dependencies&depth=1&sync_id=${s1}`);
    assert.deepEqual(paths(res.body), ['b.ts@1']);
    const deep = await impact('a.ts', `&direction=dependencies&depth=2&sync_id=${s2}`);
    assert.deepEqual(paths(deep.body), ['b.ts@1', 'e.ts@1', 'c.ts@2']);
  });

  it('limit cuts the items, total and truncated say so', async () => {
    const res = await impact('d.ts', `&sync_id=${s1}&limit=2`);
    assert.equal(res.body.items.length, 2);
    assert.equal(res.body.total, 4);
    assert.equal(res.body.truncated, true);
  });

  it('a file nobody depends on: an empty list', async () => {
    const res = await impact('new.ts');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.items, []);
    assert.equal(res.body.total, 0);
  });

  it('bad parameters are 400 naming the field; unknown nodes and syncs 404', async () => {
    for (const [q, field] of [
      ['', 'node_id'],
      ['?node_id=nonsense', 'node_id'],
      [`?node_id=${encodeURIComponent(nid('a.ts'))}&depth=0`, 'depth'],
      [`?node_id=${encodeURIComponent(nid('a.ts'))}&depth=11`, 'depth'],
      [`?node_id=${encodeURIComponent(nid('a.ts'))}&direction=up`, 'direction'],
      [`?node_id=${encodeURIComponent(nid('a.ts'))}&sync_id=42`, 'sync_id'],
      [`?node_id=${encodeURIComponent(nid('a.ts'))}&limit=0`, 'limit'],
    ] as const) {
      const res = await app.get(`/api/graph/impact${q}`);
      assert.equal(res.status, 400, q);
      assert.equal(res.body.error.field, field, q);
    }
    assert.equal((await impact('nope.ts')).status, 404);
    assert.equal((await impact('gone.ts', `&sync_id=${s2}`)).status, 404, 'the file is not in that sync');
    const unknown = await impact('a.ts', '&sync_id=00000000-0000-4000-8000-000000000000');
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.error.message, /sync/);
    // A sync of another source does not hold this source's node.
    const foreign = await app.get(`/api/graph/impact?node_id=${encodeURIComponent(`src_${other}:a.ts`)}&sync_id=${s1}`);
    assert.equal(foreign.status, 404);
  });

  it('diff: files added, removed, changed by content hash; depends_on edges added and removed', async () => {
    const res = await app.get<DiffBody>(`/api/graph/diff?from=${s1}&to=${s2}`);
    assert.equal(res.status, 200);
    const b = res.body;
    assert.equal(b.source_id, src);
    assert.equal(b.from.id, s1);
    assert.equal(b.to.id, s2);
    assert.deepEqual(
      b.files.added.map((f) => f.file_path),
      ['new.ts'],
    );
    assert.equal(b.files.added[0]!.node_id, nid('new.ts'));
    assert.deepEqual(
      b.files.removed.map((f) => f.file_path),
      ['gone.ts'],
    );
    assert.deepEqual(
      b.files.changed.map((f) => f.file_path),
      ['c.ts'],
    );
    assert.notEqual(b.files.changed[0]!.from_hash, b.files.changed[0]!.to_hash);
    const e = (x: { source: string; target: string }) => `${x.source.slice(41)}>${x.target.slice(41)}`;
    assert.deepEqual(b.edges.added.map(e), ['a.ts>e.ts', 'e.ts>a.ts', 'new.ts>a.ts']);
    assert.deepEqual(b.edges.removed.map(e), ['gone.ts>e.ts', 'x.ts>c.ts']);
    assert.deepEqual(b.counts, {
      added: 1,
      removed: 1,
      changed: 1,
      unchanged: 6,
      edges_added: 3,
      edges_removed: 2,
    });
    assert.equal(b.truncated, false);
  });

  it('diff defaults: to = newest completed sync of the source, from = the completed one before it', async () => {
    const res = await app.get<DiffBody>(`/api/graph/diff?source_id=${src}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.from.id, s1);
    assert.equal(res.body.to.id, s2);
    const fromOnly = await app.get<DiffBody>(`/api/graph/diff?from=${s1}`);
    assert.equal(fromOnly.body.to.id, s2);
    // Reversed: additions become removals.
    const back = await app.get<DiffBody>(`/api/graph/diff?from=${s2}&to=${s1}`);
    assert.deepEqual(
      back.body.files.removed.map((f) => f.file_path),
      ['new.ts'],
    );
    // A running sync can be compared explicitly.
    const live = await app.get<DiffBody>(`/api/graph/diff?from=${s2}&to=${running}`);
    assert.equal(live.status, 200);
    assert.equal(live.body.counts.removed, 7);
  });

  it('diff limit cuts every list and says truncated; counts stay complete', async () => {
    const res = await app.get<DiffBody>(`/api/graph/diff?from=${s1}&to=${s2}&limit=1`);
    assert.equal(res.body.edges.added.length, 1);
    assert.equal(res.body.counts.edges_added, 3);
    assert.equal(res.body.truncated, true);
  });

  it('diff errors: no selector, syncs of two sources, unknown sync, no earlier sync, cleaned sync', async () => {
    const none = await app.get('/api/graph/diff');
    assert.equal(none.status, 400);
    assert.equal(none.body.error.field, 'source_id');
    const bad = await app.get('/api/graph/diff?from=xyz');
    assert.equal(bad.body.error.field, 'from');
    const mixed = await app.get(`/api/graph/diff?source_id=${other}&to=${s2}`);
    assert.equal(mixed.status, 400);
    assert.equal(mixed.body.error.field, 'to');
    const unknown = await app.get(`/api/graph/diff?from=00000000-0000-4000-8000-000000000000&to=${s2}`);
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.error.message, /from/);
    const first = await app.get(`/api/graph/diff?source_id=${other}`);
    assert.equal(first.status, 404, 'the only completed sync has nothing before it');
    await app.db.pool.query(`UPDATE sync_runs SET status = 'cleaned' WHERE id = $1`, [running]);
    const cleaned = await app.get(`/api/graph/diff?from=${s2}&to=${running}`);
    assert.equal(cleaned.status, 409);
    assert.equal(cleaned.body.error.code, 'FAILED_PRECONDITION');
  });
});
