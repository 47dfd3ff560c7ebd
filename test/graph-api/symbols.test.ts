import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { SymbolInfo } from '../../engine/types.ts';
import type { SymbolEdge } from '../../engine/symbols/index.ts';
import { insertSource } from '../support/fixtures.ts';
import { startGraphTestApp, type GraphTestApp } from '../support/graph-app.ts';
import { writeSymbolGraph, writeSyncFiles } from '../support/graph-data.ts';

interface Related {
  id: string;
  key: string;
  name: string;
  kind: string;
  file_path: string;
  node_id: string;
  line: number;
  rel_type: string;
  provenance: string;
  confidence: number;
  lines: number[];
  count: number;
}
interface Completeness {
  status: 'exact' | 'lower_bound';
  reasons: Array<{ reason: string; count: number }>;
}
interface Detail {
  symbol: Related & {
    signature: string | null;
    doc: string | null;
    end_line: number;
    sync_id: string;
    language: string;
  };
  callers: Related[];
  callees: Related[];
  supertypes: Related[];
  subtypes: Related[];
  overrides: Related[];
  overridden_by: Related[];
  references: Related[];
  referenced_by: Related[];
  counts: Record<string, number>;
  completeness: { callers: Completeness; callees: Completeness };
  unresolved: Array<{ kind: string; text: string; line: number; reason: string }>;
}
interface Impact {
  sync_id: string;
  completeness: Completeness;
  total: number;
  tests: number;
  by_distance: Record<string, number>;
  items: Array<{ id: string; key: string; distance: number; via: string; file_type: string; provenance: string }>;
}

const sym = (
  name: string,
  key: string,
  symbol_kind: SymbolInfo['symbol_kind'],
  line: number,
  end_line: number,
  extra: Partial<SymbolInfo> = {},
): SymbolInfo => ({
  name,
  kind: symbol_kind === 'method' ? 'method' : symbol_kind === 'function' ? 'function' : 'class',
  line,
  key,
  symbol_kind,
  end_line,
  ...extra,
});

const call = (
  from: string,
  to: string,
  provenance: SymbolEdge['provenance'],
  confidence: number,
  lines: number[],
  count = lines.length,
): SymbolEdge => ({
  label: 'calls',
  from,
  to,
  provenance,
  confidence,
  lines,
  count,
});

describe('graph component: symbol graph reads', () => {
  let app: GraphTestApp;
  let src: string;
  let s1: string;
  let cleaned: string;
  const owner = 'symco';
  const repo = `lib-${Math.random().toString(36).slice(2, 8)}`;
  const id = (ref: string) => `src_${src}:${ref}`;
  const detail = (address: string, extra = '') =>
    app.get<Detail>(`/api/graph/symbol?symbol=${encodeURIComponent(address)}${extra}`);
  const impact = (address: string, extra = '') =>
    app.get<Impact>(`/api/graph/symbol/impact?symbol=${encodeURIComponent(address)}${extra}`);

  before(async () => {
    app = await startGraphTestApp();
    const db = app.db.pool;
    src = await insertSource(db, owner, repo);
    const files = [
      {
        path: 'src/a.ts',
        deps: [['src/b.ts', 1]] as Array<[string, number]>,
        symbols: [
          sym('main', 'main:function', 'function', 1, 4, { signature: 'function main(): void', doc: 'Entry point.' }),
          sym('helper', 'helper:function', 'function', 5, 8),
        ],
      },
      {
        path: 'src/b.ts',
        symbols: [
          sym('Base', 'Base:class', 'class', 1, 5),
          sym('run', 'Base.run:method', 'method', 2, 4),
          sym('Impl', 'Impl:class', 'class', 10, 15),
          sym('run', 'Impl.run:method', 'method', 11, 14),
        ],
      },
      {
        path: 'test/a.test.ts',
        type: 'test' as const,
        symbols: [sym('testMain', 'testMain:function', 'function', 1, 6)],
      },
    ];
    ({ syncId: s1 } = await writeSyncFiles(db, src, files));
    const edges: SymbolEdge[] = [
      call('src/a.ts#main:function', 'src/a.ts#helper:function', 'scope', 1, [2]),
      call('src/a.ts#main:function', 'src/b.ts#Base.run:method', 'receiver_type', 0.9, [3, 4], 3),
      call('test/a.test.ts#testMain:function', 'src/a.ts#main:function', 'import', 0.95, [3]),
      call('src/b.ts#Impl.run:method', 'src/a.ts#helper:function', 'import', 0.95, [12]),
      {
        label: 'implements',
        from: 'src/b.ts#Impl:class',
        to: 'src/b.ts#Base:class',
        provenance: 'scope',
        confidence: 1,
        lines: [],
        count: 1,
      },
      {
        label: 'overrides',
        from: 'src/b.ts#Impl.run:method',
        to: 'src/b.ts#Base.run:method',
        provenance: 'hierarchy',
        confidence: 1,
        lines: [],
        count: 1,
      },
      {
        label: 'references',
        from: 'src/a.ts#helper:function',
        to: 'src/b.ts#Base:class',
        provenance: 'import',
        confidence: 0.95,
        lines: [6],
        count: 1,
      },
    ];
    await writeSymbolGraph(db, { syncId: s1, sourceId: src }, edges, [
      { from: 'src/a.ts#helper:function', kind: 'call', text: 'obj.frob', line: 7, reason: 'dynamic_receiver' },
      { from: 'src/b.ts#Base.run:method', kind: 'call', text: 'this.cb.helper', line: 3, reason: 'dynamic_receiver' },
    ]);
    ({ syncId: cleaned } = await writeSyncFiles(
      db,
      await insertSource(db),
      [{ path: 'x.ts', symbols: [sym('x', 'x:function', 'function', 1, 2)] }],
      {
        status: 'cleaned',
      },
    ));
  });

  after(async () => {
    await app?.close();
  });

  it('symbol detail: definition, callers and callees with provenance, confidence and sites, hierarchy, unresolved', async () => {
    const r = await detail(id('src/a.ts#main:function'));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const b = r.body;
    assert.equal(b.symbol.id, id('src/a.ts#main:function'));
    assert.equal(b.symbol.file_path, 'src/a.ts');
    assert.equal(b.symbol.line, 1);
    assert.equal(b.symbol.end_line, 4);
    assert.equal(b.symbol.signature, 'function main(): void');
    assert.equal(b.symbol.doc, 'Entry point.');
    assert.equal(b.symbol.sync_id, s1);
    assert.deepEqual(
      b.callees.map((c) => [c.id, c.provenance, c.confidence, c.lines, c.count]),
      [
        [id('src/a.ts#helper:function'), 'scope', 1, [2], 1],
        [id('src/b.ts#Base.run:method'), 'receiver_type', 0.9, [3, 4], 3],
      ],
    );
    assert.deepEqual(
      b.callers.map((c) => [c.key, c.file_path, c.provenance, c.lines]),
      [['testMain:function', 'test/a.test.ts', 'import', [3]]],
    );
    // Nothing unresolved could be a caller of `main`; its callee Base.run is overridden (dynamic dispatch).
    assert.equal(b.completeness.callers.status, 'exact');
    assert.equal(b.completeness.callees.status, 'lower_bound');
    assert.deepEqual(
      b.completeness.callees.reasons.map((x) => [x.reason, x.count]),
      [['dynamic_dispatch', 1]],
    );
    assert.deepEqual(b.unresolved, []);

    const helper = (await detail(id('src/a.ts#helper:function'))).body;
    assert.deepEqual(helper.callers.map((c) => c.key).sort(), ['Impl.run:method', 'main:function']);
    assert.deepEqual(helper.unresolved, [{ kind: 'call', text: 'obj.frob', line: 7, reason: 'dynamic_receiver' }]);
    assert.deepEqual(
      helper.references.map((c) => [c.key, c.lines]),
      [['Base:class', [6]]],
    );
    // `this.cb.helper` was not resolved anywhere: the callers of helper are a lower bound.
    assert.equal(helper.completeness.callers.status, 'lower_bound');
    assert.deepEqual(
      helper.completeness.callers.reasons.map((x) => [x.reason, x.count]),
      [['unresolved_calls', 1]],
    );
    assert.deepEqual(
      helper.completeness.callees.reasons.map((x) => [x.reason, x.count]),
      [['dynamic_receiver', 1]],
    );

    const base = (await detail(id('src/b.ts#Base:class'))).body;
    assert.deepEqual(
      base.subtypes.map((c) => [c.key, c.rel_type]),
      [['Impl:class', 'implements']],
    );
    assert.deepEqual(
      base.referenced_by.map((c) => c.key),
      ['helper:function'],
    );
    const impl = (await detail(id('src/b.ts#Impl.run:method'))).body;
    assert.deepEqual(
      impl.overrides.map((c) => [c.key, c.provenance]),
      [['Base.run:method', 'hierarchy']],
    );
    assert.equal(impl.completeness.callers.status, 'lower_bound');
    assert.ok(impl.completeness.callers.reasons.some((x) => x.reason === 'dynamic_dispatch' && x.count === 1));
    const baseRun = (await detail(id('src/b.ts#Base.run:method'))).body;
    assert.deepEqual(
      baseRun.overridden_by.map((c) => c.key),
      ['Impl.run:method'],
    );
    assert.equal(baseRun.counts.callers, 1);
  });

  it('addresses: owner/name form, a short key naming one symbol; ambiguous, unknown and malformed ones', async () => {
    const byName = await detail(`${owner}/${repo}:src/a.ts#main`);
    assert.equal(byName.status, 200, JSON.stringify(byName.body));
    assert.equal(byName.body.symbol.id, id('src/a.ts#main:function'));
    assert.equal((await detail(id('src/b.ts#Impl.run'))).body.symbol.key, 'Impl.run:method');
    const ambiguous = await detail(id('src/b.ts#run'));
    assert.equal(ambiguous.status, 400);
    assert.equal(ambiguous.body.error.field, 'symbol');
    assert.match(ambiguous.body.error.message, /Base\.run:method/);
    assert.equal((await detail(id('src/a.ts#nothing'))).status, 404);
    assert.equal((await detail(`${owner}/no-such-repo:src/a.ts#main`)).status, 404);
    const bad = await detail('src/a.ts');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.field, 'symbol');
    assert.equal((await app.get('/api/graph/symbol')).status, 400);
    assert.equal((await detail(id('src/a.ts#main'), `&sync_id=${cleaned}`)).status, 404);
  });

  it('a cleaned sync has no symbol graph: 409', async () => {
    const r = await app.get<Detail>(
      `/api/graph/symbol?symbol=${encodeURIComponent(`src_${(await app.db.pool.query<{ source_id: string }>('SELECT source_id FROM sync_runs WHERE id = $1', [cleaned])).rows[0]!.source_id}:x.ts#x`)}&sync_id=${cleaned}`,
    );
    assert.equal(r.status, 409);
  });

  it('a sync made with symbol_graph: false has symbols without edges: every list is a lower bound', async () => {
    const db = app.db.pool;
    const other = await insertSource(db);
    const { syncId } = await writeSyncFiles(db, other, [
      { path: 'y.ts', symbols: [sym('y', 'y:function', 'function', 1, 2)] },
    ]);
    await db.query(`UPDATE sync_runs SET config_snapshot = '{"symbol_graph": false}' WHERE id = $1`, [syncId]);
    const r = await app.get<Detail>(
      `/api/graph/symbol?symbol=${encodeURIComponent(`src_${other}:y.ts#y:function`)}&sync_id=${syncId}`,
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
    for (const c of [r.body.completeness.callers, r.body.completeness.callees]) {
      assert.equal(c.status, 'lower_bound');
      assert.deepEqual(
        c.reasons.map((x) => x.reason),
        ['no_symbol_graph'],
      );
    }
  });

  it('symbol impact: transitive callers and callees to a depth, exact or lower bound with the reason', async () => {
    const callers = await impact(id('src/b.ts#Base.run:method'), '&depth=2');
    assert.equal(callers.status, 200, JSON.stringify(callers.body));
    assert.deepEqual(
      callers.body.items.map((i) => [i.key, i.distance, i.via]),
      [
        ['main:function', 1, id('src/b.ts#Base.run:method')],
        ['testMain:function', 2, id('src/a.ts#main:function')],
      ],
    );
    assert.equal(callers.body.tests, 1);
    assert.deepEqual(callers.body.by_distance, { '1': 1, '2': 1 });
    assert.equal(callers.body.completeness.status, 'exact');
    const shallow = await impact(id('src/b.ts#Base.run:method'), '&depth=1');
    assert.deepEqual(
      shallow.body.items.map((i) => i.key),
      ['main:function'],
    );

    const helperCallers = await impact(id('src/a.ts#helper:function'));
    assert.deepEqual(
      helperCallers.body.items.map((i) => [i.key, i.distance]),
      [
        ['main:function', 1],
        ['Impl.run:method', 1],
        ['testMain:function', 2],
      ],
    );
    assert.equal(helperCallers.body.completeness.status, 'lower_bound');
    // helper's own name is in an unresolved call; Impl.run overrides Base.run (dispatch).
    assert.deepEqual(helperCallers.body.completeness.reasons.map((x) => x.reason).sort(), [
      'dynamic_dispatch',
      'unresolved_calls',
    ]);

    const callees = await impact(id('test/a.test.ts#testMain'), '&direction=callees&depth=3');
    assert.deepEqual(
      callees.body.items.map((i) => [i.key, i.distance]),
      [
        ['main:function', 1],
        ['helper:function', 2],
        ['Base.run:method', 2],
      ],
    );
    assert.equal(callees.body.completeness.status, 'lower_bound');
    assert.deepEqual(callees.body.completeness.reasons.map((x) => x.reason).sort(), [
      'dynamic_dispatch',
      'dynamic_receiver',
    ]);
    const bad = await impact(id('src/a.ts#main'), '&direction=sideways');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.field, 'direction');
  });

  it("a file's symbols, and node detail: a file's symbols are addressable, a symbol's neighbours carry the new labels", async () => {
    const list = await app.get<{ items: Array<{ id: string; key: string; callers: number; callees: number }> }>(
      `/api/graph/symbols?node_id=${encodeURIComponent(id('src/a.ts'))}`,
    );
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.items.map((i) => [i.key, i.callers, i.callees]),
      [
        ['main:function', 1, 2],
        ['helper:function', 2, 0],
      ],
    );
    const file = await app.get<{ neighbors: Array<{ node_id: string; rel_type: string; key?: string }> }>(
      `/api/graph/nodes/${encodeURIComponent(id('src/a.ts'))}`,
    );
    assert.equal(file.status, 200);
    assert.deepEqual(
      file.body.neighbors
        .filter((n) => n.rel_type === 'defines')
        .map((n) => n.node_id)
        .sort(),
      [id('src/a.ts#helper:function'), id('src/a.ts#main:function')],
    );
    const node = await app.get<{
      node: { id: string; name: string; type: string; line_count: number };
      neighbors: Array<{ node_id: string; rel_type: string; direction: string; weight: number }>;
    }>(`/api/graph/nodes/${encodeURIComponent(id('src/a.ts#main:function'))}`);
    assert.equal(node.status, 200, JSON.stringify(node.body));
    assert.equal(node.body.node.name, 'main');
    assert.equal(node.body.node.type, 'symbol');
    assert.equal(node.body.node.line_count, 4);
    assert.deepEqual(
      node.body.neighbors.map((n) => [n.rel_type, n.direction, n.node_id, n.weight]),
      [
        ['defines', 'in', id('src/a.ts'), 1],
        ['calls', 'out', id('src/a.ts#helper:function'), 1],
        ['calls', 'out', id('src/b.ts#Base.run:method'), 3],
        ['calls', 'in', id('test/a.test.ts#testMain:function'), 1],
      ],
    );
    // The merged graph stays depends_on only.
    const merged = await app.get<{ edges: Array<{ data: { label?: string } }> }>(`/api/graph?sync_ids=${s1}`);
    assert.equal(merged.status, 200);
    assert.equal(merged.body.edges.length, 1);
    assert.ok(merged.body.edges.every((e) => e.data.label === 'depends_on'));
  });

  it("a symbol search hit links to the symbol's detail", async () => {
    const hits = await app.get<{ items: Array<{ name: string; symbol: string | null; sync_id: string }> }>(
      `/api/graph/search/symbols?q=helper&match=exact&source_id=${src}`,
    );
    assert.equal(hits.status, 200, JSON.stringify(hits.body));
    assert.deepEqual(
      hits.body.items.map((h) => h.symbol),
      [id('src/a.ts#helper:function')],
    );
    const d = await detail(hits.body.items[0]!.symbol!, `&sync_id=${hits.body.items[0]!.sync_id}`);
    assert.equal(d.status, 200);
    assert.equal(d.body.symbol.name, 'helper');
  });

  it('the OpenAPI document describes the symbol reads', async () => {
    const doc = await app.get<{ paths: Record<string, unknown> }>('/openapi.json');
    for (const p of ['/api/graph/symbol', '/api/graph/symbol/impact', '/api/graph/symbols'])
      assert.ok(doc.body.paths[p], p);
  });
});
