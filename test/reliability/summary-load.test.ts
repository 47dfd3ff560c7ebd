/**
 * Issue 10 regressions: summaries under load. 14 concurrent forced summaries used to take every pooled connection
 * (an advisory-lock session each, then asking the same pool for more) and wedge the component; each summary held a
 * connection over the whole model call, so reads queued behind them. Past the queue a summary is 503 + Retry-After.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createPool } from '../../lib/db.ts';
import { testLogger } from '../support/log.ts';
import { UnavailableError } from '../../lib/errors.ts';
import { createDenseClient } from '../../graph-api/summary/dense-client.ts';
import { createSummaryService } from '../../graph-api/summary/service.ts';
import { findFile } from '../../graph-api/graph/node-queries.ts';
import { insertSource } from '../support/fixtures.ts';
import { DEFAULT_BUDGET, startGraphTestApp, type GraphTestApp } from '../support/graph-app.ts';
import type { SummaryBody } from '../support/graph-api-types.ts';
import { writeSyncFiles } from '../support/graph-data.ts';

const FILES = Array.from({ length: 16 }, (_, i) => `src/f${i}.ts`);

describe('reliability: summaries never exhaust or deadlock a pool', () => {
  let app: GraphTestApp;
  let src: string;
  const nid = (path: string) => `src_${src}:${path}`;
  const summaryUrl = (path: string) => `/api/graph/nodes/${encodeURIComponent(nid(path))}/summary?force=true`;

  before(async () => {
    app = await startGraphTestApp({ summaryLimits: { concurrency: 2, queue: 2, queueTimeoutMs: 30_000 } });
    src = await insertSource(app.db.pool);
    await writeSyncFiles(
      app.db.pool,
      src,
      FILES.map((path, i) => ({ path, text: `export const v${i} = ${i};\n`, deps: i > 0 ? [[FILES[0]!, 1]] : [] })),
    );
  });
  after(() => app.close());

  it('16 forced summaries on a 2-connection pool with 6 running at once all answer, and the pool stays usable', async () => {
    const pool = createPool(app.db.url, { max: 2, acquireTimeoutMs: 20_000 });
    app.models.setFaults({ latencyMs: 200 }, 'chat');
    try {
      const service = createSummaryService({
        pool,
        log: testLogger('graph-api'),
        budget: DEFAULT_BUDGET,
        limits: { concurrency: 6, queue: 100, queueTimeoutMs: 30_000 },
        dense: createDenseClient({
          url: app.models.chatUrl,
          model: 'dense',
          apiKey: undefined,
          maxTokens: 400,
          timeoutMs: 10_000,
        }),
      });
      const files = await Promise.all(FILES.map(async (p) => (await findFile(app.db.pool, src, p, undefined))!));
      const results = await Promise.all(
        files.map((file, i) => service.summarize({ nodeId: nid(FILES[i]!), file, force: true })),
      );
      assert.deepEqual(
        results.map((r) => r.source),
        FILES.map(() => 'llm'),
      );
      // Nothing is left holding a connection or a lease.
      assert.equal(pool.waitingCount, 0);
      assert.equal((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one, 1);
      assert.equal(
        (await app.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM summary_leases')).rows[0]!.n,
        0,
      );
    } finally {
      app.models.setFaults({ latencyMs: 0 }, 'chat');
      await pool.end();
    }
  });

  it('past the queue a summary is 503 UNAVAILABLE with Retry-After; reads answer while summaries wait on the model', async () => {
    app.models.setFaults({ latencyMs: 1500 }, 'chat');
    try {
      // concurrency 2 + queue 2: of 6 distinct files, 2 are refused at once.
      const storm = FILES.slice(0, 6).map((p) => fetch(app.url + summaryUrl(p)));
      // While the first ones wait on the model, a node-detail read answers.
      const detail = await app.get(`/api/graph/nodes/${encodeURIComponent(nid(FILES[7]!))}`);
      assert.equal(detail.status, 200);
      const replies = await Promise.all(storm);
      const statuses = replies.map((r) => r.status).sort();
      assert.deepEqual(statuses, [200, 200, 200, 200, 503, 503]);
      for (const r of replies) {
        const body = (await r.json()) as SummaryBody & { error?: { code: string; message: string } };
        if (r.status !== 503) continue;
        assert.equal(body.error?.code, 'UNAVAILABLE');
        assert.match(body.error?.message ?? '', /summary/);
        assert.match(r.headers.get('retry-after') ?? '', /^\d+$/);
        assert.ok(Number(r.headers.get('retry-after')) >= 1);
      }
    } finally {
      app.models.setFaults({ latencyMs: 0 }, 'chat');
    }
  });

  it('a lease left by a crashed process is taken over once it expires', async () => {
    const file = (await findFile(app.db.pool, src, FILES[9]!, undefined))!;
    await app.db.pool.query(
      `INSERT INTO summary_leases (file_id, holder, expires_at) VALUES ($1, 'gone:1:x', now() + interval '1 second')`,
      [file.id],
    );
    const service = createSummaryService({
      pool: app.db.pool,
      log: testLogger('graph-api'),
      budget: DEFAULT_BUDGET,
      dense: createDenseClient({
        url: app.models.chatUrl,
        model: 'dense',
        apiKey: undefined,
        maxTokens: 400,
        timeoutMs: 10_000,
      }),
    });
    const result = await service.summarize({ nodeId: nid(FILES[9]!), file, force: true });
    assert.equal(result.source, 'llm');
  });

  it('the limiter refuses past its queue and after its wait cap, with a Retry-After estimate', async () => {
    const { createLimiter } = await import('../../lib/limiter.ts');
    const limiter = createLimiter({ name: 'test', concurrency: 1, queue: 1, queueTimeoutMs: 50 });
    let release!: () => void;
    const first = limiter.run(() => new Promise<void>((r) => (release = r)));
    const queued = limiter.run(() => Promise.resolve('late'));
    await assert.rejects(
      limiter.run(() => Promise.resolve('x')),
      (e: unknown) => e instanceof UnavailableError && /waiting/.test(e.message),
    );
    await assert.rejects(queued, (e: unknown) => e instanceof UnavailableError && (e.retryAfterSeconds ?? 0) >= 1);
    release();
    await first;
    assert.equal(await limiter.run(() => Promise.resolve('free')), 'free');
    assert.equal(limiter.running, 0);
  });
});
