import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createRepo, MULTI_LANGUAGE_FILES, type TestRepo } from '../support/git-repos.ts';
import { embedText, prepareInput } from '../../standins/model-host/embed.ts';
import { chunkKeyInput } from '../../engine/embedding.ts';
import {
  createHarness,
  getRun,
  insertPendingSync,
  insertSource,
  runSync,
  syncCounts,
  type Harness,
} from '../support/pipeline.ts';

/** The vector the model-host stand-in answers for `input`. */
const vectorFor = (input: string) => embedText(prepareInput(input).text, 896);

/** Equal up to the float32 rounding of the vector column, over every dimension. */
function sameVector(stored: number[], expected: number[]): boolean {
  return stored.length === expected.length && stored.every((x, i) => Math.abs(x - expected[i]!) < 1e-5);
}

// The multi-language repository, plus two text files that only the first-100-lines and 1400-character rules cut.
const MANY_LINES = Array.from({ length: 150 }, (_, i) => `item${i}`).join('\n') + '\n';
const WIDE =
  Array.from({ length: 20 }, (_, i) => Array.from({ length: 12 }, (_, k) => `word${i * 12 + k}`).join(' ')).join('\n') +
  '\n';
const FILES: Record<string, string> = {
  ...MULTI_LANGUAGE_FILES,
  'notes/many-lines.txt': MANY_LINES,
  'notes/wide.txt': WIDE,
};

describe('full sync of a small multi-language repository', () => {
  let h: Harness;
  let repo: TestRepo;
  let sourceId: string;
  let syncId: string;
  before(async () => {
    h = await createHarness();
    await h.startWorker();
    repo = createRepo(FILES);
    sourceId = await insertSource(h.db.pool, { url: repo.dir, owner: 'acme', name: 'demo' });
    syncId = await insertPendingSync(h.db.pool, sourceId);
    const result = await runSync(h, sourceId, syncId);
    assert.equal(result.status, 'completed', JSON.stringify(result));
  });
  after(async () => {
    await h.close();
    repo.remove();
  });

  it('ends the run completed with stats, progress and times', async () => {
    const run = await getRun(h.db.pool, syncId);
    assert.equal(run.status, 'completed');
    assert.equal(run.error, null);
    assert.ok(run.started_at && run.completed_at && run.completed_at >= run.started_at);
    assert.equal(run.progress_meta.phase, 'completed');
    const stats = run.stats as Record<string, unknown> & {
      durations_ms: Record<string, number>;
      edges: { depends_on: number };
    };
    assert.equal(stats.files, Object.keys(FILES).length);
    assert.equal(stats.commit_sha, repo.head);
    for (const phase of [
      'cloning',
      'parsing',
      'graphing',
      'embedding_summaries',
      'embedding_chunks',
      'finalizing',
      'total',
    ]) {
      assert.equal(typeof stats.durations_ms[phase], 'number', `duration of ${phase}`);
    }
    assert.ok(stats.edges.depends_on >= 2, `depends_on edges: ${stats.edges.depends_on}`);
  });

  it('writes a file record per file with commit, hash and a vector', async () => {
    const rows = await h.db.pool.query<{
      file_path: string;
      type: string;
      language: string;
      content_hash: string;
      last_commit_sha: string;
      last_commit_at: Date;
      has_vector: boolean;
      source_id: string;
    }>(
      `SELECT file_path, type, language, content_hash, last_commit_sha, last_commit_at, embedding IS NOT NULL AS has_vector, source_id
         FROM file_records WHERE sync_id = $1 ORDER BY file_path`,
      [syncId],
    );
    assert.deepEqual(
      rows.rows.map((r) => r.file_path),
      Object.keys(FILES).sort(),
    );
    for (const r of rows.rows) {
      assert.equal(r.last_commit_sha, repo.head);
      assert.equal(r.last_commit_at.toISOString(), '2026-01-02T03:04:05.000Z');
      assert.match(r.content_hash, /^[0-9a-f]{64}$/);
      assert.equal(r.has_vector, true, `${r.file_path} has a vector`);
      assert.equal(r.source_id, sourceId);
    }
    const byPath = new Map(rows.rows.map((r) => [r.file_path, r]));
    assert.equal(byPath.get('src/app.ts')?.language, 'typescript');
    assert.equal(byPath.get('py/lib.py')?.language, 'python');
    assert.equal(byPath.get('go/main.go')?.language, 'go');
  });

  it('backfills the file vector from the spec embedding text (prefixed, path/type/language, first lines)', async () => {
    const r = await h.db.pool.query<{ file_path: string; embedding: string; type: string; language: string }>(
      `SELECT file_path, embedding::text, type, language FROM file_records WHERE sync_id = $1`,
      [syncId],
    );
    const row = new Map(r.rows.map((x) => [x.file_path, x]));
    const header = (path: string) =>
      `search_document: path: ${path}\ntype: ${row.get(path)!.type}\nlanguage: ${row.get(path)!.language}\n`;
    const stored = (path: string) => JSON.parse(row.get(path)!.embedding) as number[];

    const util = vectorFor(header('src/util.ts') + FILES['src/util.ts']!);
    assert.ok(sameVector(stored('src/util.ts'), util), 'src/util.ts: the vector of its embedding text');
    // The header counts: without the path/type/language lines the vector differs.
    assert.ok(!sameVector(stored('src/util.ts'), vectorFor(FILES['src/util.ts']!)));

    // Only the first 100 lines are embedded (this file has 150 short ones).
    const firstLines = MANY_LINES.split('\n').slice(0, 100).join('\n') + '\n';
    assert.ok(sameVector(stored('notes/many-lines.txt'), vectorFor(header('notes/many-lines.txt') + firstLines)));
    assert.ok(!sameVector(stored('notes/many-lines.txt'), vectorFor(header('notes/many-lines.txt') + MANY_LINES)));

    // The text is cut at 1400 characters, prefix included (this file has 20 lines of ~100 characters).
    const wide = header('notes/wide.txt') + WIDE;
    assert.ok(sameVector(stored('notes/wide.txt'), vectorFor(wide.slice(0, 1400))));
    assert.ok(!sameVector(stored('notes/wide.txt'), vectorFor(wide)));
  });

  it('writes chunks with breadcrumbs and vectors of their prefixed content, cut at 1400 characters', async () => {
    const r = await h.db.pool.query<{ file_path: string; content: string; embedding: string | null }>(
      `SELECT f.file_path, c.content, c.embedding::text FROM content_chunks c JOIN file_records f ON f.id = c.file_id
        WHERE c.sync_id = $1 ORDER BY f.file_path, c.chunk_index`,
      [syncId],
    );
    assert.ok(r.rows.length >= 8);
    let cut = 0;
    for (const c of r.rows) {
      assert.match(c.content, /^# file: /);
      assert.ok(c.embedding, 'chunk has a vector');
      const input = 'search_document: ' + c.content;
      const stored = JSON.parse(c.embedding) as number[];
      assert.ok(sameVector(stored, vectorFor(input.slice(0, 1400))), `chunk of ${c.file_path}`);
      if (input.length > 1400) {
        cut++;
        assert.ok(!sameVector(stored, vectorFor(input)), `the chunk of ${c.file_path} is cut before embedding`);
      }
    }
    assert.ok(cut >= 1, 'a chunk longer than 1400 characters was embedded');
  });

  it("writes each chunk's key vector from its names and messages (chunkKeyInput), null when it has neither", async () => {
    const r = await h.db.pool.query<{ content: string; symbols: string[]; key: string | null }>(
      `SELECT c.content, c.symbols, c.key_embedding::text AS key FROM content_chunks c WHERE c.sync_id = $1`,
      [syncId],
    );
    let keyed = 0;
    for (const c of r.rows) {
      const input = chunkKeyInput(c.content, c.symbols);
      if (input === null) {
        assert.equal(c.key, null);
        continue;
      }
      keyed++;
      assert.ok(c.key !== null && sameVector(JSON.parse(c.key) as number[], vectorFor(input)), 'key vector');
    }
    assert.ok(keyed >= 3, `chunks with a key text: ${keyed}`);
  });

  it("leaves nothing pending in the search indexes' GIN lists once the sync completed", async () => {
    // gin_clean_pending_list answers how many pending pages it merged: none left by the sync.
    const r = await h.db.pool.query<{ chunks: number; symbols: number }>(
      `SELECT gin_clean_pending_list('file_content_chunks_search_terms')::int AS chunks,
              gin_clean_pending_list('file_content_symbols_name_trgm')::int AS symbols`,
    );
    assert.deepEqual(r.rows[0], { chunks: 0, symbols: 0 });
  });

  it('sends every embedding input with the search_document: prefix, once', async () => {
    const c = await syncCounts(h.db.pool, syncId);
    const e = h.modelHost.stats().embeddings;
    assert.equal(e.unprefixedInputs, 0);
    assert.equal(e.queryInputs, 0);
    const keyed = await h.db.pool.query<{ n: number }>(
      `SELECT count(key_embedding)::int AS n FROM content_chunks WHERE sync_id = $1`,
      [syncId],
    );
    // Files, chunks and the chunks' key texts (the chunks that define names or hold messages).
    assert.equal(e.documentInputs, c.files + c.chunks + keyed.rows[0]!.n);
    assert.equal(e.injectedFailures, 0);
  });

  it('writes File and Symbol vertices and depends_on/defines edges that Cypher sees', async () => {
    const counts = await syncCounts(h.db.pool, syncId);
    assert.equal(counts.file_vertices, counts.files);
    assert.ok(counts.symbol_vertices >= 5, `symbols: ${counts.symbol_vertices}`);
    assert.equal(counts.defines, counts.symbol_vertices);
    const edges = await h.db.pool.query<{ a: string; b: string }>(
      `SELECT * FROM cypher('service', $$
         MATCH (a:File)-[e:depends_on]->(b:File) WHERE e.sync_id = '${syncId}' RETURN a.name, b.name
       $$) AS (a agtype, b agtype)`,
    );
    const pairs = edges.rows.map((r) => `${JSON.parse(r.a) as string}->${JSON.parse(r.b) as string}`).sort();
    assert.ok(pairs.includes('app.ts->util.ts'), pairs.join(', '));
    assert.ok(pairs.includes('main.go->hello.go'), pairs.join(', '));
    const run = await getRun(h.db.pool, syncId);
    assert.equal((run.stats as { vertices: number }).vertices, counts.file_vertices + counts.symbol_vertices);
  });

  it('sets the source last sync and writes lifecycle, progress and source_changed events', async () => {
    const src = await h.db.pool.query<{ last_sync_id: string; last_synced_at: Date | null }>(
      `SELECT last_sync_id, last_synced_at FROM sources WHERE id = $1`,
      [sourceId],
    );
    assert.equal(src.rows[0]!.last_sync_id, syncId);
    assert.ok(src.rows[0]!.last_synced_at);
    const ev = await h.db.pool.query<{ type: string; payload: Record<string, unknown> }>(
      `SELECT type, payload FROM events WHERE source_id = $1 ORDER BY id`,
      [sourceId],
    );
    const lifecycle = ev.rows.filter((e) => e.type === 'sync_lifecycle').map((e) => e.payload.status);
    assert.deepEqual(lifecycle, ['pending', 'running', 'completed']);
    const completed = ev.rows.find((e) => e.type === 'sync_lifecycle' && e.payload.status === 'completed')!;
    assert.equal(completed.payload.previous_status, 'running');
    assert.ok(completed.payload.stats);
    const progress = ev.rows.filter((e) => e.type === 'sync_progress').map((e) => e.payload.phase);
    for (const phase of ['cloning', 'parsing', 'graphing', 'embedding_summaries', 'embedding_chunks']) {
      assert.ok(progress.includes(phase), `a progress event for ${phase}: ${progress.join(',')}`);
    }
    const changed = ev.rows.filter((e) => e.type === 'source_changed');
    assert.equal(changed.length, 1);
    assert.equal(changed[0]!.payload.change, 'synced');
    assert.equal(changed[0]!.payload.last_sync_id, syncId);
    // The completed lifecycle event comes before source_changed, and both after every progress event.
    const types = ev.rows.map((e) => e.type);
    assert.ok(types.lastIndexOf('sync_progress') < types.indexOf('source_changed'));
  });

  it("removes the sync's clone from the worker disk, keeping only the source's clone for its next sync", () => {
    const kept = readdirSync(h.cloneDir).flatMap((w) =>
      readdirSync(join(h.cloneDir, w)).flatMap((d) => readdirSync(join(h.cloneDir, w, d)).map((x) => `${d}/${x}`)),
    );
    assert.ok(kept.length > 0);
    for (const k of kept) assert.match(k, /^sources\/[0-9a-f-]{36}$/);
  });
});
