import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setChunkEmbeddings, setChunkKeyEmbeddings } from '../../activities/store/index.ts';
import { embedText, prepareInput } from '../../standins/model-host/embed.ts';
import { FUSION, queryShape } from '../../graph-api/search/fusion.ts';
import { insertSource } from '../support/fixtures.ts';
import { startGraphTestApp, type GraphTestApp } from '../support/graph-app.ts';
import { writeSyncFiles, type FileSpec } from '../support/graph-data.ts';
import { atDistance, hashVector } from '../support/vectors.ts';

interface Hit {
  node_id: string;
  chunk_id: string;
  file_path: string;
  language: string;
  file_type: string;
  sync_id: string;
  start_line: number;
  end_line: number;
  chunk_type: string;
  symbols: string[];
  score: number;
  scores: { lexical: { rank: number; score: number } | null; semantic: { rank: number; distance: number } | null };
  snippet: { start_line: number; end_line: number; text: string; highlights: Array<[number, number]>; marked: string };
}
interface Body {
  items: Hit[];
  next_cursor: string | null;
  meta: { mode: string; sync_ids: string[]; terms: string[]; prefixes: string[] };
}

const one = (body: string, extra: Partial<NonNullable<FileSpec['chunks']>[number]> = {}) => [
  { start: 10, end: 10 + body.split('\n').length - 1, body, ...extra },
];

describe('graph component: chunk search', () => {
  let app: GraphTestApp;
  let src: string;
  let other: string;
  let latest: string;
  let older: string;
  const paths = (b: Body) => b.items.map((h) => h.file_path).sort();
  const search = (qs: string) => app.get<Body>(`/api/graph/search/chunks?${qs}`);

  before(async () => {
    app = await startGraphTestApp();
    src = await insertSource(app.db.pool);
    other = await insertSource(app.db.pool);
    ({ syncId: older } = await writeSyncFiles(
      app.db.pool,
      src,
      [{ path: 'old/legacy.ts', chunks: one('function parseRequestBody() {}') }],
      { minutesAgo: 60 },
    ));
    ({ syncId: latest } = await writeSyncFiles(
      app.db.pool,
      src,
      [
        {
          path: 'src/http/body.ts',
          chunks: one('export function parseRequestBody(req: Request) {\n  return JSON.parse(req.text);\n}', {
            chunk_type: 'function',
            symbols: ['parseRequestBody'],
          }),
        },
        {
          path: 'py/handlers.py',
          language: 'python',
          chunks: one('def parse_request_body(request):\n    return json.loads(request.body)', {
            chunk_type: 'function',
            symbols: ['parse_request_body'],
          }),
        },
        {
          path: 'docs/guide.md',
          type: 'doc',
          language: 'markdown',
          chunks: one('## Bodies\n\nWe parse the request body before routing.', { chunk_type: 'heading' }),
        },
        {
          path: 'src/exit.go',
          language: 'go',
          chunks: one('func quit() {\n\tos.Exit(1)\n}', { chunk_type: 'function' }),
        },
        {
          path: 'test/body.test.ts',
          type: 'test',
          chunks: one("it('parses a request body', () => parseRequestBody(req));"),
        },
      ],
      { minutesAgo: 30 },
    ));
    // A running sync of the same source and a completed sync of another source.
    await writeSyncFiles(app.db.pool, src, [{ path: 'wip.ts', chunks: one('parseRequestBody()') }], {
      status: 'running',
    });
    await writeSyncFiles(app.db.pool, other, [{ path: 'elsewhere.ts', chunks: one('const requestBody = 1;') }]);
  });
  after(() => app.close());

  describe('identifier splitting', () => {
    const forms = ['parseRequestBody', 'parse_request_body', 'ParseRequestBody', 'parse request body'];
    for (const q of forms) {
      it(`"${q}" finds camelCase, snake_case and prose alike (lexical)`, async () => {
        const res = await search(`mode=lexical&source_id=${src}&q=${encodeURIComponent(q)}`);
        assert.equal(res.status, 200);
        assert.deepEqual(paths(res.body), ['docs/guide.md', 'py/handlers.py', 'src/http/body.ts', 'test/body.test.ts']);
      });
    }

    it('ranks the chunk that defines the identifier above ones that mention its words', async () => {
      const res = await search(`mode=lexical&source_id=${src}&q=parseRequestBody`);
      const top = res.body.items.slice(0, 2).map((h) => h.file_path);
      assert.deepEqual(top.sort(), ['py/handlers.py', 'src/http/body.ts']);
      assert.equal(res.body.items.at(-1)!.file_path, 'docs/guide.md');
    });

    it('matches the unfinished last word as a prefix', async () => {
      const res = await search(`mode=lexical&source_id=${src}&q=pars`);
      assert.deepEqual(res.body.meta.prefixes, ['pars']);
      assert.deepEqual(paths(res.body), ['docs/guide.md', 'py/handlers.py', 'src/http/body.ts', 'test/body.test.ts']);
      const spaced = await search(`mode=lexical&source_id=${src}&q=${encodeURIComponent('pars ')}`);
      assert.deepEqual(spaced.body.items, [], 'a finished word is not a prefix');
    });

    it('marks the matched identifiers in the snippet', async () => {
      const res = await search(`mode=lexical&source_id=${src}&q=${encodeURIComponent('request body')}`);
      const py = res.body.items.find((h) => h.file_path === 'py/handlers.py')!;
      assert.equal(py.snippet.start_line, 10);
      assert.equal(py.snippet.text, 'def parse_request_body(request):\n    return json.loads(request.body)');
      assert.equal(py.snippet.marked, 'def «parse_request_body»(«request»):\n    return json.loads(«request».«body»)');
      assert.deepEqual(
        py.snippet.highlights.map(([s, e]) => py.snippet.text.slice(s, e)),
        ['parse_request_body', 'request', 'request', 'body'],
      );
    });
  });

  describe('scope and filters', () => {
    it("searches each source's newest completed sync by default", async () => {
      const res = await search(`mode=lexical&q=${encodeURIComponent('request body')}`);
      assert.equal(res.status, 200);
      assert.ok(res.body.meta.sync_ids.includes(latest));
      assert.ok(!res.body.meta.sync_ids.includes(older));
      assert.ok(paths(res.body).includes('elsewhere.ts'), 'the other source is searched too');
      assert.ok(!paths(res.body).includes('old/legacy.ts') && !paths(res.body).includes('wip.ts'));
    });

    it('source_id narrows to one source; sync_ids reads exactly the named syncs', async () => {
      const bySource = await search(`mode=lexical&source_id=${other}&q=requestBody`);
      assert.deepEqual(paths(bySource.body), ['elsewhere.ts']);
      const bySync = await search(`mode=lexical&sync_ids=${older}&q=requestBody`);
      assert.deepEqual(paths(bySync.body), ['old/legacy.ts']);
      assert.deepEqual(bySync.body.meta.sync_ids, [older]);
    });

    const cases: Array<[string, string[]]> = [
      ['language=python', ['py/handlers.py']],
      ['file_type=doc', ['docs/guide.md']],
      ['file_type=test', ['test/body.test.ts']],
      ['chunk_type=function', ['py/handlers.py', 'src/http/body.ts']],
      ['path_prefix=src/', ['src/http/body.ts']],
      ['path_prefix=src/http/&language=typescript&chunk_type=function', ['src/http/body.ts']],
      ['path_prefix=nowhere/', []],
    ];
    for (const [filter, want] of cases) {
      it(`${filter} keeps only matching chunks (lexical and semantic)`, async () => {
        for (const mode of ['lexical', 'hybrid']) {
          const res = await search(`mode=${mode}&source_id=${src}&q=parseRequestBody&${filter}`);
          assert.equal(res.status, 200);
          const got = mode === 'lexical' ? paths(res.body) : paths(res.body).filter((p) => want.includes(p));
          assert.deepEqual(got, want, mode);
          if (mode === 'hybrid')
            assert.ok(
              paths(res.body).every((p) => want.includes(p)),
              `${mode}: ${paths(res.body).join(', ')}`,
            );
        }
      });
    }

    it('hits carry node id, lines, chunk type, symbols and the sync', async () => {
      const res = await search(`mode=lexical&source_id=${src}&q=parse_request_body&language=python`);
      const hit = res.body.items[0]!;
      assert.deepEqual(
        {
          node_id: hit.node_id,
          start_line: hit.start_line,
          end_line: hit.end_line,
          chunk_type: hit.chunk_type,
          symbols: hit.symbols,
          sync_id: hit.sync_id,
          language: hit.language,
          file_type: hit.file_type,
        },
        {
          node_id: `src_${src}:py/handlers.py`,
          start_line: 10,
          end_line: 11,
          chunk_type: 'function',
          symbols: ['parse_request_body'],
          sync_id: latest,
          language: 'python',
          file_type: 'source',
        },
      );
    });
  });

  describe('semantic and hybrid (reciprocal rank fusion)', () => {
    const query = 'exit the process';
    const qv = embedText(prepareInput(`search_query: ${query}`).text, 896);
    let semanticSync: string;
    before(async () => {
      const s = await insertSource(app.db.pool);
      // Lexical order for "exit the process": c (both words, symbol) > a (both words) > b (one word); d has none.
      // Semantic order (chosen distances): b 0.1 < d 0.2 < c 0.3 < a 0.4.
      const files: Array<[string, string, string[], number]> = [
        ['a.ts', 'exit the process; a process exit', [], 0.4],
        ['b.ts', 'exit now', [], 0.1],
        ['c.ts', 'function exitProcess() { process.exit() }', ['exitProcess'], 0.3],
        ['d.ts', 'nothing alike', [], 0.2],
      ];
      ({ syncId: semanticSync } = await writeSyncFiles(
        app.db.pool,
        s,
        files.map(([path, body, symbols]) => ({ path, chunks: one(body, { symbols }) })),
      ));
      const ids = await app.db.pool.query<{ id: string; file_path: string }>(
        `SELECT c.id, f.file_path FROM content_chunks c JOIN file_records f ON f.id = c.file_id WHERE c.sync_id = $1`,
        [semanticSync],
      );
      const byPath = new Map(ids.rows.map((r) => [r.file_path, r.id]));
      await setChunkEmbeddings(
        app.db.pool,
        files.map(([path, , , d]) => ({ id: byPath.get(path)!, embedding: atDistance(qv, hashVector(path, 896), d) })),
      );
    });

    it('semantic mode embeds `search_query: <q>` once and orders by cosine distance', async () => {
      app.models.resetStats();
      const res = await search(`mode=semantic&sync_ids=${semanticSync}&q=${encodeURIComponent(query)}`);
      assert.equal(res.status, 200);
      const { embeddings } = app.models.stats();
      assert.deepEqual([embeddings.requests, embeddings.queryInputs], [1, 1]);
      assert.deepEqual(
        res.body.items.map((h) => h.file_path),
        ['b.ts', 'd.ts', 'c.ts', 'a.ts'],
      );
      const d = res.body.items.map((h) => h.scores.semantic!.distance);
      [0.1, 0.2, 0.3, 0.4].forEach((want, i) => assert.ok(Math.abs(d[i]! - want) < 1e-4));
      assert.ok(res.body.items.every((h) => h.scores.lexical === null));
    });

    it("semantic mode also reads the chunks' key vectors (each chunk at the nearer of its two), the query's identifiers embedded as words", async () => {
      const ids = await app.db.pool.query<{ id: string; file_path: string }>(
        `SELECT c.id, f.file_path FROM content_chunks c JOIN file_records f ON f.id = c.file_id WHERE c.sync_id = $1`,
        [semanticSync],
      );
      const byPath = new Map(ids.rows.map((r) => [r.file_path, r.id]));
      // The query `exitProcess` is embedded as `search_query: exit process`; a.ts's key vector is near that, d.ts's far.
      const kv = embedText(prepareInput('search_query: exit process').text, 896);
      await setChunkKeyEmbeddings(app.db.pool, [
        { id: byPath.get('a.ts')!, embedding: atDistance(kv, hashVector('ka', 896), 0.05) },
        { id: byPath.get('d.ts')!, embedding: atDistance(kv, hashVector('kd', 896), 0.9) },
      ]);
      try {
        const res = await search(`mode=semantic&sync_ids=${semanticSync}&q=exitProcess`);
        assert.equal(res.status, 200);
        assert.equal(res.body.items[0]!.file_path, 'a.ts');
        assert.ok(Math.abs(res.body.items[0]!.scores.semantic!.distance - 0.05) < 1e-4);
        // Each chunk once, ordered by its nearer distance.
        const files = res.body.items.map((h) => h.file_path);
        assert.deepEqual([...files].sort(), ['a.ts', 'b.ts', 'c.ts', 'd.ts']);
        const d = res.body.items.map((h) => h.scores.semantic!.distance);
        assert.deepEqual(
          d,
          [...d].sort((x, y) => x - y),
        );
      } finally {
        await app.db.pool.query(`UPDATE file_content_chunks SET key_embedding = NULL WHERE id = ANY($1::uuid[])`, [
          [...byPath.values()],
        ]);
      }
    });

    it('lexical mode makes no embedding call', async () => {
      app.models.resetStats();
      const res = await search(`mode=lexical&sync_ids=${semanticSync}&q=${encodeURIComponent(query)}`);
      assert.equal(app.models.stats().embeddings.requests, 0);
      assert.deepEqual(
        res.body.items.map((h) => h.file_path),
        ['c.ts', 'a.ts', 'b.ts'],
      );
    });

    it('hybrid (the default) fuses both rankings with the fusion of the query shape, ties by chunk id', async () => {
      const res = await search(`sync_ids=${semanticSync}&q=${encodeURIComponent(query)}`);
      assert.equal(res.body.meta.mode, 'hybrid');
      const { method, lexical: w, k } = FUSION[queryShape(query)];
      // RRF: 2w / (k + lexical rank) + 2(1 − w) / (k + semantic rank). Scores: w · BM25 / best BM25 + (1 − w) ·
      // (1 + cos) / (1 + best cos), a chunk one list lacks taking that list's last figure.
      const lex = res.body.items.filter((h) => h.scores.lexical).map((h) => h.scores.lexical!.score);
      const sims = res.body.items.filter((h) => h.scores.semantic).map((h) => 2 - h.scores.semantic!.distance);
      const lastLex = res.body.items.find((h) => h.scores.lexical?.rank === lex.length)!.scores.lexical!.score;
      const lastSim =
        2 - res.body.items.find((h) => h.scores.semantic?.rank === sims.length)!.scores.semantic!.distance;
      const fused = (h: Hit) =>
        method === 'rrf'
          ? (h.scores.lexical ? (2 * w) / (k + h.scores.lexical.rank) : 0) +
            (h.scores.semantic ? (2 * (1 - w)) / (k + h.scores.semantic.rank) : 0)
          : (w * (h.scores.lexical?.score ?? lastLex)) / Math.max(...lex) +
            ((1 - w) * (h.scores.semantic ? 2 - h.scores.semantic.distance : lastSim)) / Math.max(...sims);
      for (const h of res.body.items) assert.ok(Math.abs(h.score - fused(h)) < 1e-12);
      // c: lexical 1 + semantic 3; b: lexical 3 + semantic 1; a: lexical 2 + semantic 4; d: semantic 2 only.
      const ranks = (p: string) => res.body.items.find((h) => h.file_path === p)!;
      assert.deepEqual(
        [ranks('c.ts'), ranks('b.ts'), ranks('a.ts'), ranks('d.ts')].map((h) => [
          h.scores.lexical?.rank,
          h.scores.semantic?.rank,
        ]),
        [
          [1, 3],
          [3, 1],
          [2, 4],
          [undefined, 2],
        ],
      );
      const expected = [...res.body.items].sort((x, y) => fused(y) - fused(x) || (x.chunk_id < y.chunk_id ? -1 : 1));
      assert.deepEqual(
        res.body.items.map((h) => h.file_path),
        expected.map((h) => h.file_path),
      );
    });

    it('pages with a cursor: the pages concatenated are the unpaged list', async () => {
      const whole = await search(`sync_ids=${semanticSync}&q=${encodeURIComponent(query)}`);
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res: { status: number; body: Body } = await search(
          `sync_ids=${semanticSync}&limit=1&q=${encodeURIComponent(query)}${cursor ? `&cursor=${cursor}` : ''}`,
        );
        assert.equal(res.status, 200);
        seen.push(...res.body.items.map((h) => h.chunk_id));
        cursor = res.body.next_cursor;
        pages++;
      } while (cursor !== null && pages < 10);
      assert.deepEqual(
        seen,
        whole.body.items.map((h) => h.chunk_id),
      );
      assert.equal(pages, 4);
    });

    it('refuses a cursor of another query, and one it did not issue', async () => {
      const first = await search(`sync_ids=${semanticSync}&limit=1&q=${encodeURIComponent(query)}`);
      const cursor = first.body.next_cursor!;
      const other = await search(`sync_ids=${semanticSync}&limit=1&q=exit&cursor=${cursor}`);
      assert.equal(other.status, 400);
      assert.equal(other.body.error.field, 'cursor');
      const bogus = await search(`sync_ids=${semanticSync}&q=exit&cursor=not-a-cursor`);
      assert.equal(bogus.status, 400);
      assert.equal(bogus.body.error.field, 'cursor');
    });
  });

  describe('empty and hostile queries', () => {
    const bad: Array<[string, string]> = [
      ['', 'q'],
      ['q=', 'q'],
      ['q=%20%20%09', 'q'],
      [`q=${'x'.repeat(2001)}`, 'q'],
      ['q=a&q=b', 'q'],
      ['q=a%00b', 'q'],
      ['q=a&mode=fuzzy', 'mode'],
      ['q=a&limit=0', 'limit'],
      ['q=a&limit=101', 'limit'],
      ['q=a&limit=ten', 'limit'],
      ['q=a&file_type=binary', 'file_type'],
      ['q=a&chunk_type=lambda', 'chunk_type'],
      ['q=a&source_id=nope', 'source_id'],
      ['q=a&sync_ids=1,2', 'sync_ids'],
    ];
    for (const [qs, field] of bad) {
      it(`400 naming ${field} for ${qs.slice(0, 40) || '(no q)'}`, async () => {
        const res = await search(qs);
        assert.equal(res.status, 400);
        assert.equal(res.body.error.code, 'INVALID_ARGUMENT');
        assert.equal(res.body.error.field, field);
      });
    }

    it('404 for unknown syncs and sources', async () => {
      const id = '00000000-0000-4000-8000-000000000000';
      const s = await search(`q=a&sync_ids=${id}`);
      assert.equal(s.status, 404);
      assert.deepEqual(s.body.error.details, { unknown_sync_ids: [id] });
      assert.equal((await search(`q=a&source_id=${id}`)).status, 404);
    });

    const hostile = [
      "' OR 1=1 --",
      "a' | 'b",
      '!(&|):*<->',
      'x:* & !y',
      '\\\\\'"',
      '$$ DROP TABLE content_chunks; $$',
      '%_%',
      'ünïcödé naïveParse',
      '🙂🙂',
    ];
    for (const q of hostile) {
      it(`answers ${JSON.stringify(q)} without an error, in every mode`, async () => {
        for (const mode of ['lexical', 'semantic', 'hybrid']) {
          const res = await search(`mode=${mode}&source_id=${src}&q=${encodeURIComponent(q)}`);
          assert.equal(res.status, 200, `${mode}: ${JSON.stringify(res.body)}`);
          assert.ok(Array.isArray(res.body.items));
        }
      });
    }

    it('a query without a word matches nothing lexically', async () => {
      const res = await search(`mode=lexical&source_id=${src}&q=${encodeURIComponent('(*&^%')}`);
      assert.deepEqual(res.body.items, []);
      assert.deepEqual(res.body.meta.terms, []);
    });

    it('no completed sync: an empty page, not an error', async () => {
      const empty = await insertSource(app.db.pool);
      const res = await search(`source_id=${empty}&q=anything`);
      assert.equal(res.status, 200);
      assert.deepEqual([res.body.items, res.body.next_cursor, res.body.meta.sync_ids], [[], null, []]);
    });
  });
});
