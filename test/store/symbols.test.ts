import { after, before, describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeSymbolFacts, type FactsRow } from '../../activities/store/index.ts';
import type { SymbolEdge, SymbolFacts, UnresolvedUse } from '../../engine/symbols/index.ts';
import type { SymbolInfo } from '../../engine/types.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { insertSource } from '../support/fixtures.ts';
import { writeSymbolGraph, writeSyncFiles } from '../support/graph-data.ts';
import { edgeParts } from '../../activities/sync/resolve-symbols.ts';

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
