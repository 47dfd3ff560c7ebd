import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { testLogger } from '../support/log.ts';
import { createDenseClient } from '../../graph-api/summary/dense-client.ts';
import { createSummaryService } from '../../graph-api/summary/service.ts';
import { chunksOf, findFile } from '../../graph-api/graph/node-queries.ts';
import { reconstruct } from '../../graph-api/file/reconstruct.ts';
import { neighborContext } from '../../graph-api/summary/context.ts';
import { SYSTEM_PROMPT, buildPrompt } from '../../graph-api/summary/prompt.ts';
import { composeSummary, readPrompt } from '../../standins/model-host/chat.ts';
import { insertSource } from '../support/fixtures.ts';
import { DEFAULT_BUDGET, startGraphTestApp, type GraphTestApp } from '../support/graph-app.ts';
import type { SummaryBody } from '../support/graph-api-types.ts';
import { hashVector } from '../support/vectors.ts';
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
  const BUDGET = { ...DEFAULT_BUDGET, totalChars: 4000 };
  /** The chat requests the model-host stand-in received (its request log). */
  const chatLog = (host = app.models) => host.stats().log.filter((l) => l.endpoint === 'chat');
  /** The stand-in refuses a request when ceil(prompt characters / 4) + max_tokens exceeds its window. */
  const tokensNeeded = (promptChars: number) => Math.ceil(promptChars / 4) + 400;
  /** The prompt the component builds for a file at a budget scale, from the same rows, with its own functions. */
  const promptAt = async (path: string, scale: number) => {
    const file = (await findFile(app.db.pool, src, path, undefined))!;
    const text = reconstruct(await chunksOf(app.db.pool, file.id)).content;
    return buildPrompt(file, text, await neighborContext(app.db.pool, file.id, BUDGET.edgeNeighbors), BUDGET, scale);
  };
  /** Another graph component on the same database whose model host has a chat window of `tokens`. */
  const withWindow = (tokens: number) =>
    startGraphTestApp({
      db: app.db,
      budget: BUDGET,
      modelHost: { chatContextTokens: tokens },
      ingestionUrl: app.ingestion!.url,
    });

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
    app.models.resetStats();
    const res = await app.get<SummaryBody>(url('cached.ts'));
    assert.equal(res.status, 200);
    assert.equal(res.body.source, 'cache');
    assert.equal(res.body.summary, 'from the cache');
    assert.equal(res.body.generated_at, '2025-01-01T00:00:00.000Z');
    assert.equal(res.body.node_id, nid('cached.ts'));
    assert.equal(app.models.stats().chat.requests, 0);
  });

  it('force: calls the model with the spec parameters and stores the result', async () => {
    app.models.resetStats();
    const before = Date.now();
    const res = await app.get<SummaryBody>(url('cached.ts', '?force=true'));
    assert.equal(res.body.source, 'llm');
    assert.equal(res.body.model, 'dense');
    assert.equal(res.body.attempts, 1);
    const stats = app.models.stats();
    assert.equal(stats.chat.requests, 1);
    const req = chatLog()[0]!;
    assert.deepEqual(
      {
        outcome: req.outcome,
        model: req.model,
        temperature: req.temperature,
        maxTokens: req.maxTokens,
        enableThinking: req.enableThinking,
        roles: req.roles,
      },
      {
        outcome: 'ok',
        model: 'dense',
        temperature: 0.2,
        maxTokens: 400,
        enableThinking: false,
        roles: ['system', 'user'],
      },
    );
    // The stand-in requires `Authorization: Bearer llm-key` (LLM_API_KEY): an `ok` outcome means it was sent.
    assert.equal(stats.chat.unauthorized, 0);
    // The stand-in's paragraph about the prompt it received (thinking off: no <think> block to strip).
    const summary = res.body.summary ?? '';
    const m =
      /^\[stand-in model\] cached\.ts is a typescript file\. .*\(Built from a (\d+)-character prompt in 2 messages; no language model ran\.\)$/.exec(
        summary,
      );
    assert.ok(m, summary);
    assert.equal(Number(m[1]), req.promptChars);
    const row = await stored('cached.ts');
    assert.equal(row.description, res.body.summary);
    assert.ok(row.description_generated_at!.getTime() >= before - 1000);
    assert.equal(res.body.generated_at, row.description_generated_at!.toISOString());
    // Never embedded: nothing went to the embedding endpoint.
    assert.equal(stats.embeddings.requests, 0);
    // Now cached.
    const again = await app.get<SummaryBody>(url('cached.ts'));
    assert.equal(again.body.source, 'cache');
    assert.equal(app.models.stats().chat.requests, 1);
  });

  it('no_content: a file without chunks', async () => {
    app.models.resetStats();
    const res = await app.get<SummaryBody>(url('empty.bin', '?force=true'));
    assert.equal(res.body.source, 'no_content');
    assert.equal(res.body.summary, null);
    assert.equal(app.models.stats().chat.requests, 0);
  });

  it('prompt: header, file text, graph context by edge type and direction, top 10 neighbours by similarity', async () => {
    app.models.resetStats();
    const res = await app.get<SummaryBody>(url('app/server.ts', '?force=true'));
    assert.equal(res.body.source, 'llm');
    // The prompt the component assembles from these rows is the one the model host received: the same size in the
    // same two messages, and the stand-in's paragraph (path, definitions, related files, size) is the one it writes
    // for exactly these messages.
    const prompt = await promptAt('app/server.ts', 1);
    const received = chatLog();
    assert.equal(received.length, 1);
    assert.deepEqual(received[0]!.roles, ['system', 'user']);
    assert.equal(received[0]!.promptChars, SYSTEM_PROMPT.length + prompt.length);
    const messages = [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: prompt },
    ];
    assert.equal(res.body.summary, composeSummary(readPrompt(messages)));
    assert.match(res.body.summary ?? '', /connected to app\/caller\.ts, dep\/n0\.ts/);

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
    // Each round's model host has a window one token too small for the prompt that got through in the round before,
    // so the summary must go one budget scale further: 1 attempt, then 2, then 3.
    let window = 60_000;
    const sizes: number[] = [];
    for (const attempts of [1, 2, 3]) {
      const other = await withWindow(window);
      try {
        const res = await other.get<SummaryBody>(url('app/server.ts', '?force=true'));
        assert.equal(res.body.source, 'llm', `window ${window}`);
        assert.equal(res.body.attempts, attempts);
        const received = chatLog(other.models);
        assert.deepEqual(
          received.map((r) => r.outcome),
          [...Array<string>(attempts - 1).fill('context_length'), 'ok'],
        );
        const size = received.at(-1)!.promptChars!;
        sizes.push(size);
        window = tokensNeeded(size) - 1;
      } finally {
        await other.close();
      }
    }
    // What got through at each round is the prompt built at scale 1.0, 0.5, 0.25 (file budgets 3520, 1760, 880).
    const built = await Promise.all([1, 0.5, 0.25].map((scale) => promptAt('app/server.ts', scale)));
    assert.deepEqual(
      sizes,
      built.map((p) => SYSTEM_PROMPT.length + p.length),
    );
    for (let i = 1; i < sizes.length; i++) assert.ok(sizes[i]! < sizes[i - 1]! * 0.6, `${sizes.join(', ')}`);
  });

  it('llm_failed: every context retry fails, nothing is stored', async () => {
    await app.db.pool.query(`UPDATE file_records SET description = NULL WHERE file_path = 'app/server.ts'`);
    // A window smaller than max_tokens alone: no prompt fits.
    const tiny = await withWindow(200);
    try {
      const res = await tiny.get<SummaryBody>(url('app/server.ts'));
      assert.equal(res.status, 200);
      assert.equal(res.body.source, 'llm_failed');
      assert.equal(res.body.attempts, 3);
      assert.equal(res.body.summary, null);
      assert.match(res.body.error ?? '', /maximum context length/);
      assert.deepEqual(
        chatLog(tiny.models).map((r) => r.outcome),
        ['context_length', 'context_length', 'context_length'],
      );
    } finally {
      await tiny.close();
    }
    assert.equal((await stored('app/server.ts')).description, null);
  });

  it('llm_failed: a non-context error ends the attempts at once', async () => {
    app.models.resetStats();
    app.models.setFaults({ failureRate: 1, failureMode: 'status' }, 'chat');
    let res;
    try {
      res = await app.get<SummaryBody>(url('plain.ts'));
    } finally {
      app.models.setFaults({ failureRate: 0 }, 'chat');
    }
    assert.equal(res.body.source, 'llm_failed');
    assert.equal(res.body.attempts, 1);
    assert.match(res.body.error ?? '', /503/);
    assert.deepEqual(
      chatLog().map((r) => r.outcome),
      ['injected_failure'],
    );
    assert.equal((await stored('plain.ts')).description, null);
  });

  it('concurrent requests for one node call the model once, in one process and across two', async () => {
    app.models.resetStats();
    app.models.setFaults({ latencyMs: 300 }, 'chat');
    try {
      const results = await Promise.all(Array.from({ length: 5 }, () => app.get<SummaryBody>(url('busy.ts'))));
      assert.equal(app.models.stats().chat.requests, 1);
      assert.ok(results.every((r) => r.body.summary === results[0]!.body.summary && r.body.summary !== null));

      // A second service (as in another process) on the same database: the advisory lock serialises them.
      app.models.resetStats();
      const log = testLogger('graph-api');
      const other = createSummaryService({
        pool: app.db.pool,
        log,
        budget: DEFAULT_BUDGET,
        dense: createDenseClient({
          url: app.models.chatUrl,
          model: 'dense',
          apiKey: 'llm-key',
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
      assert.equal(app.models.stats().chat.requests, 1);
      assert.deepEqual([viaHttp.body.source, viaOther.source].sort(), ['cache', 'llm']);
      assert.equal(viaHttp.body.summary, viaOther.summary);
    } finally {
      app.models.setFaults({ latencyMs: 0 }, 'chat');
    }
  });
});
