import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../lib/log.ts';
import { createDenseClient } from '../../graph-api/summary/dense-client.ts';
import { createSummaryService } from '../../graph-api/summary/service.ts';
import { findFile } from '../../graph-api/graph/node-queries.ts';
import { neighborContext } from '../../graph-api/summary/context.ts';
import { insertSource } from '../support/fixtures.ts';
import { DEFAULT_BUDGET, startGraphTestApp, type GraphTestApp } from '../support/graph-app.ts';
import type { SummaryBody } from '../support/graph-api-types.ts';
import { hashVector } from '../support/model-host.ts';
import { writeSyncFiles } from '../support/graph-data.ts';

describe('graph component: summaries (rules 3 and 4)', () => {
  let app: GraphTestApp;
  let src: string;
  const nid = (path: string) => `src_${src}:${path}`;
  const url = (path: string, q = '') => `/api/graph/nodes/${encodeURIComponent(nid(path))}/summary${q}`;
  const stored = async (path: string) =>
    (
      await app.db.pool.query<{ description: string | null; description_generated_at: Date | null }>(
        `SELECT description, description_generated_at FROM file_records WHERE file_path = $1`,
        [path],
      )
    ).rows[0]!;
  const body = 'export function handler(req) {\n  return route(req);\n}\n'.repeat(200); // ~10 KB
  const base = hashVector('base', 896);
  // Neighbour vectors at decreasing similarity to base: near-0 closest.
  const near = (k: number) => base.map((x, i) => x + (k / 10) * (hashVector(`n${k}`, 896)[i] ?? 0));

  before(async () => {
    app = await startGraphTestApp({ budget: { totalChars: 4000 }, apiKey: 'llm-key' });
    src = await insertSource(app.db.pool);
    const neighbours = Array.from({ length: 12 }, (_, k) => ({
      path: `dep/n${k}.ts`,
      text: Array.from({ length: 12 }, (_, l) => `// n${k} line ${l + 1}\n`).join(''),
      embedding: near(k),
    }));
    await writeSyncFiles(app.db.pool, src, [
      {
        path: 'app/server.ts',
        text: body,
        embedding: base,
        deps: neighbours.slice(0, 11).map((n) => [n.path, 1] as [string, number]),
        symbols: [{ name: 'handler', kind: 'function', line: 1 }],
      },
      { path: 'app/caller.ts', deps: [['app/server.ts', 1]], embedding: near(3) },
      ...neighbours,
      { path: 'empty.bin', type: 'asset', noChunks: true },
      { path: 'cached.ts' },
      { path: 'plain.ts', text: 'const x = 1;\n' },
      { path: 'busy.ts', text: 'const busy = true;\n' },
    ]);
    await app.db.pool.query(
      `UPDATE file_records SET description = 'from the cache', description_generated_at = '2025-01-01T00:00:00Z'
        WHERE file_path = 'cached.ts'`,
    );
    await app.db.pool.query(
      `UPDATE file_records SET description = 'neighbour zero does X' WHERE file_path = 'dep/n0.ts'`,
    );
  });
  after(() => app.close());

  it('cache: a cached description is returned without calling the model', async () => {
    app.models.chatRequests.length = 0;
    const res = await app.get<SummaryBody>(url('cached.ts'));
    assert.equal(res.status, 200);
    assert.equal(res.body.source, 'cache');
    assert.equal(res.body.summary, 'from the cache');
    assert.equal(res.body.generated_at, '2025-01-01T00:00:00.000Z');
    assert.equal(res.body.node_id, nid('cached.ts'));
    assert.equal(app.models.chatRequests.length, 0);
  });

  it('force: calls the model with the spec parameters and stores the result', async () => {
    app.models.chatRequests.length = 0;
    app.models.contextChars = 1_000_000;
    const before = Date.now();
    const res = await app.get<SummaryBody>(url('cached.ts', '?force=true'));
    assert.equal(res.body.source, 'llm');
    assert.equal(res.body.model, 'dense');
    assert.equal(res.body.attempts, 1);
    assert.equal(app.models.chatRequests.length, 1);
    const req = app.models.chatRequests[0]!;
    assert.equal(req.body.model, 'dense');
    assert.equal(req.body.temperature, 0.2);
    assert.equal(req.body.max_tokens, 400);
    assert.deepEqual(req.body.chat_template_kwargs, { enable_thinking: false });
    assert.deepEqual(
      req.body.messages.map((m) => m.role),
      ['system', 'user'],
    );
    assert.equal(req.authorization, 'Bearer llm-key');
    assert.equal(res.body.summary, 'Summary: File: cached.ts');
    const row = await stored('cached.ts');
    assert.equal(row.description, res.body.summary);
    assert.ok(row.description_generated_at!.getTime() >= before - 1000);
    assert.equal(res.body.generated_at, row.description_generated_at!.toISOString());
    // Never embedded: the summary did not go to the embedding endpoint.
    assert.ok(!app.models.embeddingRequests.some((r) => r.input.some((t) => t.includes('Summary:'))));
    // Now cached.
    const again = await app.get<SummaryBody>(url('cached.ts'));
    assert.equal(again.body.source, 'cache');
    assert.equal(app.models.chatRequests.length, 1);
  });

  it('no_content: a file without chunks', async () => {
    app.models.chatRequests.length = 0;
    const res = await app.get<SummaryBody>(url('empty.bin', '?force=true'));
    assert.equal(res.body.source, 'no_content');
    assert.equal(res.body.summary, null);
    assert.equal(app.models.chatRequests.length, 0);
  });

  it('prompt: header, file text, graph context by edge type and direction, top 10 neighbours by similarity', async () => {
    app.models.chatRequests.length = 0;
    app.models.contextChars = 1_000_000;
    const res = await app.get<SummaryBody>(url('app/server.ts', '?force=true'));
    assert.equal(res.body.source, 'llm');
    const prompt = app.models.chatRequests[0]!.body.messages[1]!.content;
    assert.ok(prompt.startsWith('File: app/server.ts\nLanguage: typescript\nLines: 600\n'), prompt.slice(0, 80));
    assert.ok(prompt.includes('export function handler(req) {'));
    assert.ok(prompt.length < 4000 + 600, `${prompt.length} chars: the file text is cut to its budget`);
    const ctx = prompt.slice(prompt.indexOf('--- graph context ---'));
    assert.match(ctx, /## depends_on \(incoming\)\n- app\/caller.ts/);
    assert.match(
      ctx,
      /## depends_on \(outgoing\)\n- dep\/n0.ts \(source\)\n {2}description: neighbour zero does X\n {2}\| \/\/ n0 line 1\n/,
    );
    assert.ok(ctx.includes('| // n0 line 8') && !ctx.includes('| // n0 line 9'), 'first 8 lines of the first chunk');
    assert.match(ctx, /## defines \(outgoing\)\n- symbol handler \(function, line 1\)/);
    assert.ok(prompt.trimEnd().endsWith('Return only the paragraph.'));

    // Ranking: 12 file neighbours (11 out, 1 in), the 10 most similar kept, most similar first; symbols after.
    const file = (await findFile(app.db.pool, src, 'app/server.ts', undefined))!;
    const context = await neighborContext(app.db.pool, file.id, 10);
    assert.deepEqual(
      context.filter((c) => c.label === 'File').map((c) => c.file_path),
      [
        'dep/n0.ts',
        'dep/n1.ts',
        'dep/n2.ts',
        'app/caller.ts',
        'dep/n3.ts',
        'dep/n4.ts',
        'dep/n5.ts',
        'dep/n6.ts',
        'dep/n7.ts',
        'dep/n8.ts',
      ],
    );
    assert.deepEqual(context.at(-1), {
      rel_type: 'defines',
      direction: 'out',
      label: 'Symbol',
      name: 'handler',
      kind: 'function',
      line: 1,
    });
  });

  it('context retry: budgets 1.0, 0.5 and 0.25, checked against what the model host received', async () => {
    for (const [window, attempts] of [
      [3000, 2],
      [1800, 3],
    ] as const) {
      app.models.chatRequests.length = 0;
      app.models.contextChars = window;
      const res = await app.get<SummaryBody>(url('app/server.ts', '?force=true'));
      assert.equal(res.body.source, 'llm', `window ${window}`);
      assert.equal(res.body.attempts, attempts);
      const sizes = app.models.chatRequests.map((r) => r.promptChars);
      assert.equal(sizes.length, attempts);
      assert.deepEqual(
        app.models.chatRequests.map((r) => r.status),
        [...Array<number>(attempts - 1).fill(400), 200],
      );
      // File budgets 3520, 1760, 880 characters: each prompt roughly halves.
      for (let i = 1; i < sizes.length; i++) assert.ok(sizes[i]! < sizes[i - 1]! * 0.6, `${sizes.join(', ')}`);
    }
  });

  it('llm_failed: every context retry fails, nothing is stored', async () => {
    await app.db.pool.query(`UPDATE file_records SET description = NULL WHERE file_path = 'app/server.ts'`);
    app.models.chatRequests.length = 0;
    app.models.contextChars = 200;
    const res = await app.get<SummaryBody>(url('app/server.ts'));
    app.models.contextChars = 1_000_000;
    assert.equal(res.status, 200);
    assert.equal(res.body.source, 'llm_failed');
    assert.equal(res.body.attempts, 3);
    assert.equal(res.body.summary, null);
    assert.equal(app.models.chatRequests.length, 3);
    assert.equal((await stored('app/server.ts')).description, null);
  });

  it('llm_failed: a non-context error ends the attempts at once', async () => {
    app.models.chatRequests.length = 0;
    app.models.chatStatus = 500;
    const res = await app.get<SummaryBody>(url('plain.ts'));
    app.models.chatStatus = undefined;
    assert.equal(res.body.source, 'llm_failed');
    assert.equal(res.body.attempts, 1);
    assert.match(res.body.error ?? '', /500/);
    assert.equal((await stored('plain.ts')).description, null);
  });

  it('concurrent requests for one node call the model once, in one process and across two', async () => {
    app.models.chatRequests.length = 0;
    app.models.chatDelayMs = 300;
    try {
      const results = await Promise.all(Array.from({ length: 5 }, () => app.get<SummaryBody>(url('busy.ts'))));
      assert.equal(app.models.chatRequests.length, 1);
      assert.ok(results.every((r) => r.body.summary === results[0]!.body.summary && r.body.summary !== null));

      // A second service (as in another process) on the same database: the advisory lock serialises them.
      app.models.chatRequests.length = 0;
      const log = createLogger('graph-api', { level: 'error' });
      const other = createSummaryService({
        pool: app.db.pool,
        log,
        budget: DEFAULT_BUDGET,
        dense: createDenseClient({
          url: app.models.chatUrl,
          model: 'dense',
          apiKey: undefined,
          maxTokens: 400,
          timeoutMs: 10_000,
        }),
      });
      await app.db.pool.query(`UPDATE file_records SET description = NULL WHERE file_path = 'busy.ts'`);
      const file = (await findFile(app.db.pool, src, 'busy.ts', undefined))!;
      const [viaHttp, viaOther] = await Promise.all([
        app.get<SummaryBody>(url('busy.ts')),
        other.summarize({ nodeId: nid('busy.ts'), file, force: false }),
      ]);
      assert.equal(app.models.chatRequests.length, 1);
      assert.deepEqual([viaHttp.body.source, viaOther.source].sort(), ['cache', 'llm']);
      assert.equal(viaHttp.body.summary, viaOther.summary);
    } finally {
      app.models.chatDelayMs = 0;
    }
  });
});
