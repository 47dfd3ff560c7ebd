import { after, before, describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import { symbolVertices, writeSymbolFacts, type FactsRow } from '../../activities/store/index.ts';
import { edgesByPart, type SymbolEdge, type SymbolFacts, type UnresolvedUse } from '../../engine/symbols/index.ts';
import type { SymbolInfo } from '../../engine/types.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { insertSource } from '../support/fixtures.ts';
import { writeSymbolGraph, writeSyncFiles } from '../support/graph-data.ts';
import { edgeParts, writeResolvedGraph } from '../../activities/sync/resolve-symbols.ts';
import { resolvedInParts, type ResolvedParts } from '../../activities/sync/helpers/symbol-parts.ts';

const symbols: SymbolInfo[] = [
  { name: 'main', kind: 'function', line: 1, key: 'main:function', symbol_kind: 'function', end_line: 3 },
  { name: 'helper', kind: 'function', line: 5, key: 'helper:function', symbol_kind: 'function', end_line: 6 },
];
const edges: SymbolEdge[] = [
  {
    label: 'calls',
    from: 'a.ts#main:function',
    to: 'a.ts#helper:function',
    provenance: 'scope',
    confidence: 1,
    lines: [2],
    count: 1,
  },
  {
    label: 'references',
    from: 'a.ts#helper:function',
    to: 'a.ts#main:function',
    provenance: 'scope',
    confidence: 1,
    lines: [6],
    count: 1,
  },
];
const unresolved: UnresolvedUse[] = [
  { from: 'a.ts#main:function', kind: 'call', text: 'x.y', line: 2, reason: 'dynamic_receiver' },
];
const facts: SymbolFacts = { version: 1, defs: [], bindings: [], uses: [], top_level_uses: 0, imports: [] };

describe('symbol graph storage', () => {
  let db: TestDatabase;
  const count = async (sql: string, params: unknown[] = []) =>
    Number((await db.pool.query<{ n: string }>(sql, params)).rows[0]!.n);
  const edgesOf = (syncId: string) =>
    count(
      `SELECT count(*) AS n FROM cypher('service', $$
         MATCH (a:Symbol)-[e]->(b:Symbol) WHERE e.sync_id = '${syncId}' RETURN e
       $$) AS (e agtype)`,
    );

  before(async () => {
    db = await createTestDatabase();
  });
  after(async () => {
    await db.drop();
  });

  it('edges are AGE rows Cypher sees; unresolved sets are stored once; clean and purge leave nothing behind', async () => {
    const src = await insertSource(db.pool);
    const files = [{ path: 'a.ts', symbols }];
    const s1 = (await writeSyncFiles(db.pool, src, files)).syncId;
    const s2 = (await writeSyncFiles(db.pool, src, files)).syncId;
    await writeSymbolGraph(db.pool, { syncId: s1, sourceId: src }, edges, unresolved);
    await writeSymbolGraph(db.pool, { syncId: s2, sourceId: src }, edges, unresolved);

    const calls = await db.pool.query<{ a: string; b: string; p: string; c: string; l: string }>(
      `SELECT * FROM cypher('service', $$
         MATCH (a:Symbol)-[e:calls]->(b:Symbol) WHERE e.sync_id = '${s1}'
         RETURN a.key, b.key, e.provenance, e.confidence, e.lines
       $$) AS (a agtype, b agtype, p agtype, c agtype, l agtype)`,
    );
    assert.deepEqual(
      calls.rows.map((r) => [r.a, r.b, r.p, r.c, r.l].map((x) => JSON.parse(x) as unknown)),
      [['main:function', 'helper:function', 'scope', 1, [2]]],
    );
    assert.equal(await edgesOf(s1), 2);
    assert.equal(await count(`SELECT count(*) AS n FROM symbol_unresolved_sets`), 1, 'one set for both syncs');
    assert.equal(await count(`SELECT count(*) AS n FROM sync_symbol_unresolved`), 2);

    // Clean: the sync's symbol edges and unresolved rows go; the set stays (s2 holds it).
    await db.pool.query(`SELECT delete_sync_graph($1)`, [s1]);
    assert.equal(await edgesOf(s1), 0);
    assert.equal(await edgesOf(s2), 2);
    assert.equal(await count(`SELECT count(*) AS n FROM sync_symbol_unresolved WHERE sync_id = $1`, [s1]), 0);
    assert.equal(await count(`SELECT count(*) AS n FROM symbol_unresolved_sets`), 1);
    // Purge: the cascade removes the rest.
    await db.pool.query(`DELETE FROM sync_runs WHERE id = ANY($1::uuid[])`, [[s1, s2]]);
    assert.equal(await edgesOf(s2), 0);
    assert.equal(await count(`SELECT count(*) AS n FROM service.calls`), 0);
    assert.equal(await count(`SELECT count(*) AS n FROM service."references"`), 0);
    assert.equal(await count(`SELECT count(*) AS n FROM symbol_unresolved_sets`), 0);
  });

  it('edge parts: an attempt after a failed one writes only the parts not recorded, cut where they were', async () => {
    const src = await insertSource(db.pool);
    // Contents of their own (the facts test below purges a content shared with nothing else).
    const { syncId } = await writeSyncFiles(db.pool, src, [
      { path: 'a.ts', symbols, text: '// parts: a.ts\n' },
      { path: 'b.ts', symbols, text: '// parts: b.ts\n' },
    ]);
    const files = await db.pool.query<{ id: string; path: string }>(
      `SELECT id::text, properties ->> '"file_path"'::ag_catalog.agtype AS path FROM service."File"
        WHERE ag_catalog.agtype_access_operator(properties, '"sync_id"'::ag_catalog.agtype) = $1::text::ag_catalog.agtype`,
      [JSON.stringify(syncId)],
    );
    const vertexOf = await symbolVertices(db.pool, new Map(files.rows.map((r) => [r.id, r.path])));
    const ids = { syncId, sourceId: src };
    const hb = {
      signal: new AbortController().signal,
      note: () => undefined,
      check: () => undefined,
      stop: () => undefined,
    };
    const all: SymbolEdge[] = [edges[0]!, { ...edges[0]!, from: 'b.ts#main:function', to: 'b.ts#helper:function' }];
    all.push({ ...edges[1]!, from: 'b.ts#helper:function', to: 'b.ts#main:function' });
    const output = {
      edges: all,
      unresolved: [],
      stats: { by_language: {}, edges: all.length, unresolved: 0, external: 0 },
    };
    const cuts = ['b.ts'];
    // The thread handed over a.ts's part, then died.
    const died = Promise.reject(new Error('resolver thread died'));
    died.catch(() => undefined);
    const failing: ResolvedParts = {
      cuts,
      part: (k) => (k === 0 ? Promise.resolve(edgesByPart(all, cuts)[0]!) : died),
      output: died,
    };
    await assert.rejects(writeResolvedGraph(db.pool, ids, 2, failing, hb, { vertexOf }), /resolver thread died/);
    assert.equal(await edgesOf(syncId), 1, "a.ts's part is written and recorded");
    await assert.rejects(
      writeResolvedGraph(db.pool, ids, 2, resolvedInParts(output, []), hb, { vertexOf }),
      /other cuts/,
      'parts cut otherwise are refused, nothing written',
    );
    assert.equal(await edgesOf(syncId), 1);
    const done = await writeResolvedGraph(db.pool, ids, 2, resolvedInParts(output, cuts), hb, { vertexOf });
    assert.equal(await edgesOf(syncId), 3, 'every edge once');
    assert.equal(done.edges.calls, 2, "the recorded part's edges count");
    assert.equal(done.edges.references, 1);
  });

  it('facts are stored once per content hash, whatever the sources holding it, and go with the last content', async () => {
    const text = '// a.ts\n';
    const a = await insertSource(db.pool);
    const b = await insertSource(db.pool);
    const sa = (await writeSyncFiles(db.pool, a, [{ path: 'a.ts', text }])).syncId;
    const sb = (await writeSyncFiles(db.pool, b, [{ path: 'lib/a.ts', text }])).syncId;
    const hash = (
      await db.pool.query<{ h: string }>(`SELECT content_hash AS h FROM file_records WHERE sync_id = $1`, [sa])
    ).rows[0]!.h;
    const row: FactsRow = { content_hash: hash, language: 'typescript', facts };
    assert.equal(await writeSymbolFacts(db.pool, '', [row, row]), 1);
    assert.equal(await writeSymbolFacts(db.pool, '', [row]), 0, 'the second source finds them stored');
    await db.pool.query(`DELETE FROM sync_runs WHERE id = $1`, [sa]);
    assert.equal(await count(`SELECT count(*) AS n FROM symbol_facts WHERE content_hash = $1`, [hash]), 1);
    await db.pool.query(`DELETE FROM sync_runs WHERE id = $1`, [sb]);
    assert.equal(await count(`SELECT count(*) AS n FROM symbol_facts WHERE content_hash = $1`, [hash]), 0);
  });
});

test('edges are written in contiguous parts, cut only where the label or the calling symbol changes', () => {
  const e = (label: SymbolEdge['label'], from: string, to: string): SymbolEdge => ({
    label,
    from,
    to,
    provenance: 'scope',
    confidence: 1,
    lines: [],
    count: 1,
  });
  const list = [
    e('calls', 'a#f', 'a#g'),
    e('calls', 'a#f', 'a#h'),
    e('calls', 'a#f', 'a#i'),
    e('calls', 'a#g', 'a#h'),
    e('references', 'a#g', 'a#h'),
    e('references', 'a#h', 'a#f'),
  ];
  const two = edgeParts(list, 2);
  assert.deepEqual(two.flat(), list, 'every edge once, in order');
  assert.deepEqual(
    two.map((p) => p.length),
    [3, 3],
    'the middle (index 3) is a new from-symbol: cut there',
  );
  // Index 2 of 6 for the first third falls inside a#f's calls: the cut moves past them.
  assert.deepEqual(
    edgeParts(list, 3).map((p) => p.length),
    [3, 1, 2],
  );
  assert.deepEqual(edgeParts([list[0]!, list[1]!], 2), [[list[0], list[1]]], 'one calling symbol: one part');
  assert.deepEqual(edgeParts([], 2), [[]]);
});
