// The MCP server through the gateway (streamable HTTP at /mcp, bearer token) and over stdio (`ckg mcp`, the real
// binary), driven by the SDK's own client against the whole service.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { MAX_CHARS } from '../../mcp/fit.ts';
import { CLI_BIN, configHome, startAgentStack, type AgentStack } from '../support/agent-stack.ts';
import { insertSource } from '../support/fixtures.ts';
import { createRepo, type TestRepo } from '../support/git-repos.ts';
import { writeSymbolGraph, writeSyncFiles } from '../support/graph-data.ts';
import { unitVector, rng } from '../../bench/graph-data.ts';
import { waitFor } from '../support/wait.ts';

const TOOLS = [
  'context',
  'diff',
  'get_node',
  'impact',
  'list_sources',
  'list_syncs',
  'pr_report',
  'read_file',
  'search',
  'start_sync',
  'summarize_file',
  'sync_progress',
];

function text(r: unknown): string {
  const res = r as CallToolResult;
  const first = res.content[0];
  assert.ok(first && first.type === 'text', 'a text answer');
  return first.text;
}

describe('MCP server: streamable HTTP through the gateway and stdio from the CLI', () => {
  let stack: AgentStack;
  let http: Client;
  let stdio: Client;
  let src: string;
  let s1: string;
  let s2: string;
  let home: string;
  let repo: TestRepo;
  const nid = (p: string) => `src_${src}:${p}`;
  const big = Array.from({ length: 4000 }, (_, i) => `line ${i + 1} of the big file, padded to be long enough`);

  before(async () => {
    stack = await startAgentStack();
    const db = stack.svc.db.pool;
    src = await insertSource(db, 'acme', 'widgets');
    const rand = rng(7);
    const vec = () => unitVector(rand, 896);
    ({ syncId: s1 } = await writeSyncFiles(
      db,
      src,
      [
        { path: 'core.ts', text: 'export const core = 1;\n', embedding: vec() },
        { path: 'util.ts', deps: [['core.ts', 1]], embedding: vec() },
        { path: 'old.ts', deps: [['util.ts', 1]], embedding: vec() },
      ],
      { minutesAgo: 30 },
    ));
    ({ syncId: s2 } = await writeSyncFiles(
      db,
      src,
      [
        {
          path: 'core.ts',
          text: 'export const core = 2;\nexport function frobnicateWidgets() {}\n',
          symbols: [
            {
              name: 'frobnicateWidgets',
              kind: 'function',
              line: 2,
              key: 'frobnicateWidgets:function',
              symbol_kind: 'function',
              end_line: 2,
              signature: 'export function frobnicateWidgets()',
            },
          ],
          embedding: vec(),
        },
        { path: 'util.ts', deps: [['core.ts', 1]], embedding: vec() },
        {
          path: 'app.ts',
          deps: [['util.ts', 1]],
          embedding: vec(),
          symbols: [{ name: 'useCore', kind: 'function', line: 1, key: 'useCore:function', end_line: 3 }],
        },
        {
          path: 'app.test.ts',
          type: 'test',
          embedding: vec(),
          symbols: [{ name: 'testUseCore', kind: 'function', line: 1, key: 'testUseCore:function', end_line: 4 }],
        },
        { path: 'big.txt', type: 'doc', language: 'text', text: big.join('\n') + '\n', embedding: vec() },
      ],
      { minutesAgo: 10 },
    ));
    await writeSymbolGraph(db, { syncId: s2, sourceId: src }, [
      {
        label: 'calls',
        from: 'app.ts#useCore:function',
        to: 'core.ts#frobnicateWidgets:function',
        provenance: 'import',
        confidence: 0.95,
        lines: [2],
        count: 1,
      },
      {
        label: 'calls',
        from: 'app.test.ts#testUseCore:function',
        to: 'app.ts#useCore:function',
        provenance: 'import',
        confidence: 0.95,
        lines: [3],
        count: 1,
      },
    ]);
    http = new Client({ name: 'test-http', version: '1.0.0' });
    await http.connect(
      new StreamableHTTPClientTransport(new URL(`${stack.svc.gateway.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${stack.token}` } },
      }),
    );
    home = configHome();
    stdio = new Client({ name: 'test-stdio', version: '1.0.0' });
    await stdio.connect(
      new StdioClientTransport({
        command: CLI_BIN,
        args: ['mcp', '--url', stack.svc.gateway.url],
        env: { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: home, CKG_TOKEN: stack.token },
        stderr: 'pipe',
      }),
    );
    repo = createRepo({ 'a.ts': "import { b } from './b';\nexport const a = b;\n", 'b.ts': 'export const b = 1;\n' });
  });

  after(async () => {
    await http?.close();
    await stdio?.close();
    await stack?.close();
    repo?.remove();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('there is no way in without a valid token; only POST is served', async () => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const post = (headers: Record<string, string>) =>
      fetch(`${stack.svc.gateway.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(init),
      });
    const none = await post({});
    assert.equal(none.status, 401);
    assert.equal(((await none.json()) as { error: { code: string } }).error.code, 'UNAUTHORIZED');
    const bad = await post({ authorization: 'Bearer not-a-token' });
    assert.equal(bad.status, 401);
    const ok = await post({ authorization: `Bearer ${stack.token}` });
    assert.equal(ok.status, 200);
    const get = await fetch(`${stack.svc.gateway.url}/mcp`, { headers: { authorization: `Bearer ${stack.token}` } });
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
  });

  it('both transports list the same tools, each with an input schema', async () => {
    for (const client of [http, stdio]) {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS);
      for (const t of tools) {
        assert.equal(t.inputSchema.type, 'object', t.name);
        assert.ok(t.description && t.description.length > 20, t.name);
      }
      const impact = tools.find((t) => t.name === 'impact')!;
      assert.equal(impact.inputSchema.required, undefined, 'node_id or symbol');
      assert.ok(impact.inputSchema.properties?.symbol && impact.inputSchema.properties.node_id);
    }
  });

  it('search (files) finds node ids of the newest sync; invalid input is refused naming the field', async () => {
    for (const client of [http, stdio]) {
      const res = await client.callTool({ name: 'search', arguments: { query: 'core constant', limit: 3 } });
      const body = JSON.parse(text(res)) as { results: Array<{ id: string }> };
      assert.equal(body.results.length, 3);
      for (const r of body.results) assert.ok(r.id.startsWith(`src_${src}:`), r.id);
      const bad = await client.callTool({ name: 'search', arguments: { query: 'x', limit: 500 } });
      assert.equal(bad.isError, true);
      assert.match(text(bad), /limit/);
    }
  });

  it('search (files) honours source_id and puts the file a name names first', async () => {
    for (const client of [http, stdio]) {
      const res = await client.callTool({ name: 'search', arguments: { query: 'app.ts', source_id: src, limit: 3 } });
      const body = JSON.parse(text(res)) as { results: Array<{ id: string; match: string; repository: string }> };
      assert.equal(body.results[0]!.id, nid('app.ts'));
      assert.equal(body.results[0]!.match, 'path');
      assert.equal(body.results[0]!.repository, 'acme/widgets');
      const unknown = '00000000-0000-4000-8000-000000000000';
      const none = await client.callTool({ name: 'search', arguments: { query: 'app.ts', source_id: unknown } });
      assert.equal(none.isError, true);
      assert.match(text(none), /source/);
    }
  });

  it('search kind=chunks and kind=symbols: compact hits of the search routes', async () => {
    for (const client of [http, stdio]) {
      const sym = JSON.parse(
        text(await client.callTool({ name: 'search', arguments: { query: 'frobnicateWidgets', kind: 'symbols' } })),
      ) as { results: Array<{ name: string; kind: string; node_id: string; line: number }> };
      assert.deepEqual(sym.results[0], {
        name: 'frobnicateWidgets',
        kind: 'function',
        node_id: nid('core.ts'),
        repository: 'acme/widgets',
        file_path: 'core.ts',
        line: 2,
        match: 'exact',
      });
      const chunks = JSON.parse(
        text(await client.callTool({ name: 'search', arguments: { query: 'frobnicate widgets', kind: 'chunks' } })),
      ) as { results: Array<{ node_id: string; lines: string; text: string }> };
      assert.equal(chunks.results[0]!.node_id, nid('core.ts'));
      assert.match(chunks.results[0]!.lines, /^\d+-\d+$/);
      assert.match(chunks.results[0]!.text, /frobnicateWidgets/);
    }
  });

  it('get_node: the node with its neighbours, paginated with a note; a missing node is a tool error', async () => {
    for (const client of [http, stdio]) {
      const res = await client.callTool({ name: 'get_node', arguments: { node_id: nid('util.ts'), limit: 1 } });
      const body = JSON.parse(text(res)) as {
        node: { id: string; sync_id: string };
        neighbor_count: number;
        neighbors: unknown[];
        note: string;
      };
      assert.equal(body.node.id, nid('util.ts'));
      assert.equal(body.node.sync_id, s2);
      assert.equal(body.neighbor_count, 2);
      assert.equal(body.neighbors.length, 1);
      assert.match(body.note, /1-1 of 2.*offset=1/);
      const next = JSON.parse(
        text(await client.callTool({ name: 'get_node', arguments: { node_id: nid('util.ts'), offset: 1 } })),
      ) as { neighbors: unknown[]; note?: string };
      assert.equal(next.neighbors.length, 1);
      assert.equal(next.note, undefined);
      const missing = await client.callTool({ name: 'get_node', arguments: { node_id: nid('nope.ts') } });
      assert.equal(missing.isError, true);
      assert.match(text(missing), /^NOT_FOUND \(HTTP 404\)/);
    }
  });

  it('read_file: a line range with numbers; a long answer is cut at a line with where to go on', async () => {
    for (const client of [http, stdio]) {
      const part = text(
        await client.callTool({
          name: 'read_file',
          arguments: { node_id: nid('big.txt'), start_line: 10, end_line: 12 },
        }),
      );
      assert.deepEqual(part.split('\n').slice(1), [
        '10\tline 10 of the big file, padded to be long enough',
        '11\tline 11 of the big file, padded to be long enough',
        '12\tline 12 of the big file, padded to be long enough',
      ]);
      assert.match(part.split('\n')[0]!, new RegExp(`lines 10-12 of 4000`));
      const whole = text(await client.callTool({ name: 'read_file', arguments: { node_id: nid('big.txt') } }));
      assert.ok(whole.length <= MAX_CHARS + 300, `${whole.length} characters`);
      const m = /call again with start_line=(\d+)/.exec(whole);
      assert.ok(m, 'the cut is announced');
      const lastShown = Number(m[1]) - 1;
      assert.ok(whole.includes(`${lastShown}\tline ${lastShown} of`));
      assert.ok(!whole.includes(`\tline ${lastShown + 1} of`));
    }
  });

  it('impact and diff answer with paths', async () => {
    for (const client of [http, stdio]) {
      const imp = JSON.parse(
        text(await client.callTool({ name: 'impact', arguments: { node_id: nid('core.ts'), depth: 3 } })),
      ) as { sync_id: string; total: number; files: Array<{ path: string; distance: number; via?: string }> };
      assert.equal(imp.sync_id, s2);
      assert.deepEqual(imp.files, [
        { path: 'util.ts', type: 'source', distance: 1 },
        { path: 'app.ts', type: 'source', distance: 2, via: 'util.ts' },
      ]);
      const diff = JSON.parse(text(await client.callTool({ name: 'diff', arguments: { source_id: src } }))) as Record<
        string,
        unknown
      >;
      assert.deepEqual((diff.from as { id: string }).id, s1);
      assert.deepEqual(diff.files_added, ['app.test.ts', 'app.ts', 'big.txt']);
      assert.deepEqual(diff.files_removed, ['old.ts']);
      assert.deepEqual(diff.files_changed, ['core.ts']);
      assert.deepEqual(diff.edges_added, ['app.ts -> util.ts']);
      assert.deepEqual(diff.edges_removed, ['old.ts -> util.ts']);
    }
  });

  it('context: one symbol with its callers, callees and the tests that reach it; impact of a symbol', async () => {
    for (const client of [http, stdio]) {
      const ctx = text(
        await client.callTool({ name: 'context', arguments: { symbol: 'acme/widgets:core.ts#frobnicateWidgets' } }),
      );
      assert.match(ctx, /^# function frobnicateWidgets {2}core\.ts:2-2/);
      assert.match(ctx, /signature: export function frobnicateWidgets\(\)/);
      assert.match(ctx, /## callers: 1, exact\nuseCore:function {2}app\.ts:1 {2}\[import 0\.95\] {2}sites 2/);
      assert.match(
        ctx,
        /## tests that reach it \(callers in test files, up to 4 calls away\): 1\ntestUseCore {2}app\.test\.ts:1 {2}distance 2/,
      );
      const missing = await client.callTool({ name: 'context', arguments: { symbol: 'acme/widgets:core.ts#nothing' } });
      assert.equal(missing.isError, true);
      assert.match(text(missing), /NOT_FOUND/);

      const imp = JSON.parse(
        text(await client.callTool({ name: 'impact', arguments: { symbol: `src_${src}:core.ts#frobnicateWidgets` } })),
      ) as {
        answer: string;
        total: number;
        tests: number;
        symbols: Array<{ symbol: string; distance: number; via?: string }>;
      };
      assert.equal(imp.answer, 'exact');
      assert.equal(imp.tests, 1);
      assert.deepEqual(
        imp.symbols.map((x) => [x.symbol, x.distance, x.via]),
        [
          [`src_${src}:app.ts#useCore:function`, 1, undefined],
          [`src_${src}:app.test.ts#testUseCore:function`, 2, `src_${src}:app.ts#useCore:function`],
        ],
      );
      const both = await client.callTool({
        name: 'impact',
        arguments: { symbol: `src_${src}:core.ts#frobnicateWidgets`, node_id: nid('core.ts') },
      });
      assert.equal(both.isError, true);
      const wrong = await client.callTool({
        name: 'impact',
        arguments: { symbol: `src_${src}:core.ts#frobnicateWidgets`, direction: 'dependents' },
      });
      assert.equal(wrong.isError, true);
    }
  });

  it('summarize_file goes through the model and is cached', async () => {
    const first = JSON.parse(
      text(await http.callTool({ name: 'summarize_file', arguments: { node_id: nid('core.ts') } })),
    ) as { source: string; summary: string };
    assert.equal(first.source, 'llm');
    assert.ok(first.summary.length > 0);
    const again = JSON.parse(
      text(await stdio.callTool({ name: 'summarize_file', arguments: { node_id: nid('core.ts') } })),
    ) as { source: string; summary: string };
    assert.equal(again.source, 'cache');
    assert.equal(again.summary, first.summary);
  });

  it('list_sources and list_syncs, with the service cursor', async () => {
    const sources = JSON.parse(text(await stdio.callTool({ name: 'list_sources', arguments: {} }))) as {
      sources: Array<{ id: string; owner: string }>;
    };
    assert.ok(sources.sources.some((s) => s.id === src && s.owner === 'acme'));
    const page = JSON.parse(
      text(await http.callTool({ name: 'list_syncs', arguments: { source_id: src, limit: 1 } })),
    ) as { syncs: Array<{ id: string; status: string }>; next_cursor: string };
    assert.deepEqual(
      page.syncs.map((s) => s.id),
      [s2],
    );
    const next = JSON.parse(
      text(
        await http.callTool({ name: 'list_syncs', arguments: { source_id: src, limit: 1, cursor: page.next_cursor } }),
      ),
    ) as { syncs: Array<{ id: string }> };
    assert.deepEqual(
      next.syncs.map((s) => s.id),
      [s1],
    );
  });

  it('start_sync runs a real sync; a second one while it is active names the conflict; sync_progress follows it', async () => {
    const res = await fetch(`${stack.svc.gateway.url}/api/sources`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ owner: 'local', name: 'mcp-repo', url: repo.dir }),
    });
    const source = (await res.json()) as { id: string };
    const started = JSON.parse(
      text(await http.callTool({ name: 'start_sync', arguments: { source_id: source.id } })),
    ) as { id: string; status: string; triggered_by: string };
    assert.equal(started.triggered_by, 'mcp');
    const again = await stdio.callTool({ name: 'start_sync', arguments: { source_id: source.id } });
    assert.equal(again.isError, true);
    assert.match(text(again), /^CONFLICT \(HTTP 409\)/);
    assert.ok(text(again).includes(started.id), 'the active sync is named');
    const state = await waitFor(
      'the sync to end (sync_progress)',
      async () => {
        const s = JSON.parse(
          text(await http.callTool({ name: 'sync_progress', arguments: { sync_id: started.id } })),
        ) as { status: string; progress: string };
        return ['completed', 'failed', 'cancelled'].includes(s.status) && s;
      },
      90_000,
      300,
    );
    assert.equal(state.status, 'completed');
    assert.match(state.progress, /^\d+\/\d+/);
  });
});
