import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRepo, MULTI_LANGUAGE_FILES, type TestRepo } from '../support/git-repos.ts';
import { startGitHttpServer, type GitHttpServer } from '../support/git-http.ts';
import {
  createHarness,
  getRun,
  insertPendingSync,
  insertSource,
  runSync,
  startSync,
  syncCounts,
  type Harness,
} from '../support/pipeline.ts';

const TOKEN = 'ghp_secret_token_value_123';

async function issues(h: Harness, syncId: string) {
  const r = await h.db.pool.query<{
    level: string;
    phase: string;
    code: string;
    message: string;
    context: Record<string, unknown>;
  }>(`SELECT level, phase, code, message, context FROM sync_issues WHERE sync_id = $1 ORDER BY id`, [syncId]);
  return r.rows;
}

describe('hostile repositories and code hosts', () => {
  let h: Harness;
  let hostile: TestRepo;
  let small: TestRepo;
  let gitRoot: string;
  let host: GitHttpServer;
  before(async () => {
    h = await createHarness();
    await h.startWorker();
    const invalidUtf8 = Buffer.concat([
      Buffer.from('def f():\n    return "'),
      Buffer.from([0xff, 0xfe, 0xc3]),
      Buffer.from('"\n'),
    ]);
    const binary = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]);
    hostile = createRepo({
      'ok.ts': 'export const ok = 1;\n',
      escape: { symlink: '/etc/passwd' },
      'huge.txt': Buffer.alloc(50 * 1024 * 1024, 'abcdefghij\n'),
      'logo.png': binary,
      'bad.py': invalidUtf8,
    });
    small = createRepo(MULTI_LANGUAGE_FILES);
    gitRoot = mkdtempSync(join(tmpdir(), 'ckg-githost-'));
    execFileSync('git', ['clone', '-q', '--bare', small.dir, join(gitRoot, 'demo.git')]);
    host = await startGitHttpServer(gitRoot, TOKEN);
  });
  after(async () => {
    await h.close();
    await host.close();
    hostile.remove();
    small.remove();
    rmSync(gitRoot, { recursive: true, force: true });
  });

  it('a symlink out of the tree, a 50 MB file, binary and invalid UTF-8 become issues; the sync completes', async () => {
    const sourceId = await insertSource(h.db.pool, { url: hostile.dir });
    const syncId = await insertPendingSync(h.db.pool, sourceId);
    const result = await runSync(h, sourceId, syncId);
    assert.equal(result.status, 'completed', JSON.stringify(result));
    const found = await issues(h, syncId);
    const codes = found.map((i) => `${i.phase}:${i.code}`);
    assert.ok(
      codes.some((c) => c.endsWith(':symlink_outside_tree')),
      codes.join(', '),
    );
    assert.ok(codes.includes('parsing:file_too_large'), codes.join(', '));
    assert.ok(codes.includes('parsing:invalid_utf8'), codes.join(', '));
    const files = await h.db.pool.query<{ file_path: string; size_bytes: number; chunks: number }>(
      `SELECT f.file_path, f.size_bytes, (SELECT count(*)::int FROM content_chunks c WHERE c.file_id = f.id) AS chunks
         FROM file_records f WHERE f.sync_id = $1 ORDER BY f.file_path`,
      [syncId],
    );
    const byPath = new Map(files.rows.map((f) => [f.file_path, f]));
    assert.equal(byPath.has('escape'), false, 'the symlink out of the tree is not followed');
    assert.equal(byPath.get('huge.txt')?.size_bytes, 50 * 1024 * 1024, 'the large file is recorded');
    assert.equal(byPath.get('huge.txt')?.chunks, 0, 'without content');
    assert.equal(byPath.get('logo.png')?.chunks, 0, 'binary files are never chunked');
    assert.ok((byPath.get('bad.py')?.chunks ?? 0) >= 1, 'invalid UTF-8 is still chunked');
    assert.ok((byPath.get('ok.ts')?.chunks ?? 0) >= 1);
  });

  it('an unreachable URL fails the sync with a clear message and an issue, quickly', async () => {
    const sourceId = await insertSource(h.db.pool, { url: 'http://127.0.0.1:9/acme/missing.git' });
    const syncId = await insertPendingSync(h.db.pool, sourceId);
    const t0 = Date.now();
    const result = await runSync(h, sourceId, syncId);
    assert.equal(result.status, 'failed');
    assert.ok(Date.now() - t0 < 15_000);
    const run = await getRun(h.db.pool, syncId);
    assert.match(
      run.error ?? '',
      /^cloning http:\/\/127\.0\.0\.1:9\/acme\/missing\.git at main failed: the repository cannot be reached/,
    );
    assert.deepEqual(
      (await issues(h, syncId)).map((i) => [i.phase, i.level, i.code]),
      [['cloning', 'error', 'clone_unreachable']],
    );
  });

  it('a bad token fails the sync with a message that names the token, never its value', async () => {
    const sourceId = await insertSource(h.db.pool, { url: `${host.url}/demo.git`, token: 'wrong-token' });
    const syncId = await insertPendingSync(h.db.pool, sourceId);
    const result = await runSync(h, sourceId, syncId);
    assert.equal(result.status, 'failed');
    const run = await getRun(h.db.pool, syncId);
    assert.match(run.error ?? '', /refused the credentials \(check the source's access token\)/);
    assert.ok(!(run.error ?? '').includes('wrong-token'));
    assert.deepEqual(
      (await issues(h, syncId)).map((i) => i.code),
      ['clone_auth_failed'],
    );
  });

  it('a missing token on a protected host fails as an auth failure instead of prompting', async () => {
    const sourceId = await insertSource(h.db.pool, { url: `${host.url}/demo.git` });
    const syncId = await insertPendingSync(h.db.pool, sourceId);
    const result = await runSync(h, sourceId, syncId);
    assert.equal(result.status, 'failed');
    assert.deepEqual(
      (await issues(h, syncId)).map((i) => i.code),
      ['clone_auth_failed'],
    );
  });

  it("clones with the source's own token, which appears in no URL, workflow history or row", async () => {
    const sourceId = await insertSource(h.db.pool, { url: `${host.url}/demo.git`, token: TOKEN });
    const syncId = await insertPendingSync(h.db.pool, sourceId);
    const handle = await startSync(h, sourceId, syncId);
    const result = await handle.result();
    assert.equal(result.status, 'completed', JSON.stringify(result));
    assert.equal((await syncCounts(h.db.pool, syncId)).files, Object.keys(MULTI_LANGUAGE_FILES).length);
    assert.ok(host.authorizations.includes(`Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`));
    const history = JSON.stringify(await handle.fetchHistory());
    assert.ok(!history.includes(TOKEN) && !history.includes(Buffer.from(`x-access-token:${TOKEN}`).toString('base64')));
    const rows = await h.db.pool.query(`SELECT row_to_json(r)::text AS j FROM sync_runs r WHERE id = $1`, [syncId]);
    assert.ok(!JSON.stringify(rows.rows).includes(TOKEN));
  });

  it('never hangs on a ref that does not exist', async () => {
    const sourceId = await insertSource(h.db.pool, { url: small.dir });
    const syncId = await insertPendingSync(h.db.pool, sourceId, 'no-such-branch');
    const result = await runSync(h, sourceId, syncId);
    assert.equal(result.status, 'failed');
    assert.match((await getRun(h.db.pool, syncId)).error ?? '', /the ref does not exist/);
  });
});

describe('embedding endpoint failures', () => {
  let h: Harness;
  let small: TestRepo;
  before(async () => {
    h = await createHarness();
    await h.startWorker();
    small = createRepo(MULTI_LANGUAGE_FILES);
  });
  after(async () => {
    await h.close();
    small.remove();
  });

  for (const mode of ['status', 'reset'] as const) {
    const what = mode === 'status' ? '503 answers' : 'dropped connections';
    it(`transient ${what} are retried: every vector is written, no issue`, async () => {
      const before = h.modelHost.stats().embeddings;
      void h.modelHost.failNext(2, mode);
      const sourceId = await insertSource(h.db.pool, { url: small.dir });
      const syncId = await insertPendingSync(h.db.pool, sourceId);
      let result;
      try {
        result = await runSync(h, sourceId, syncId);
      } finally {
        h.modelHost.setFaults({ failureRate: 0 }, 'embeddings');
      }
      assert.equal(result.status, 'completed');
      const after = h.modelHost.stats().embeddings;
      assert.equal(after.injectedFailures - before.injectedFailures, 2, 'the failures were served');
      const c = await syncCounts(h.db.pool, syncId);
      assert.equal(c.files_with_vector, c.files);
      assert.equal(c.chunks_with_vector, c.chunks);
      assert.equal(c.issues, 0);
    });
  }

  it('a lasting failure: issues in embedding_summaries and embedding_chunks, a completed sync with null vectors', async () => {
    h.modelHost.setFaults({ failureRate: 1, failureMode: 'status' }, 'embeddings');
    try {
      const sourceId = await insertSource(h.db.pool, { url: small.dir });
      const syncId = await insertPendingSync(h.db.pool, sourceId);
      const requestsBefore = h.modelHost.stats().embeddings.requests;
      const result = await runSync(h, sourceId, syncId);
      assert.equal(result.status, 'completed');
      const c = await syncCounts(h.db.pool, syncId);
      assert.ok(c.files > 0 && c.chunks > 0);
      assert.equal(c.files_with_vector, 0);
      assert.equal(c.chunks_with_vector, 0);
      assert.ok(
        h.modelHost.stats().embeddings.requests - requestsBefore >= 2 * 3,
        'each batch was tried several times',
      );
      const found = await issues(h, syncId);
      assert.deepEqual([...new Set(found.map((i) => i.phase))].sort(), ['embedding_chunks', 'embedding_summaries']);
      assert.ok(found.every((i) => i.code === 'embedding_failed' && /answered 503/.test(i.message)));
      const run = await getRun(h.db.pool, syncId);
      const stats = run.stats as { embeddings: Record<string, number> };
      assert.equal(stats.embeddings.files_failed, c.files);
      assert.equal(stats.embeddings.chunks_failed, c.chunks);
    } finally {
      h.modelHost.setFaults({ failureRate: 0 }, 'embeddings');
    }
  });
});

describe('issue cap', () => {
  let h: Harness;
  let repo: TestRepo;
  before(async () => {
    h = await createHarness();
    await h.startWorker();
    const files: Record<string, Buffer> = {};
    for (let i = 0; i < 1100; i++) files[`bad/f${i}.py`] = Buffer.from([0x78, 0x3d, 0x22, 0xff, 0x22, 0x0a]);
    repo = createRepo(files);
  });
  after(async () => {
    await h.close();
    repo.remove();
  });

  it('records exactly 1000 issues of a run that has more, counts the rest, and the sync completes', async () => {
    const sourceId = await insertSource(h.db.pool, { url: repo.dir, config: { embeddings: false } });
    const syncId = await insertPendingSync(h.db.pool, sourceId);
    const result = await runSync(h, sourceId, syncId);
    assert.equal(result.status, 'completed');
    const run = await getRun(h.db.pool, syncId);
    assert.equal((await syncCounts(h.db.pool, syncId)).issues, 1000);
    assert.equal(run.issues_recorded, 1000);
    const stats = run.stats as { issues: { recorded: number; dropped: number }; embeddings: { skipped: boolean } };
    assert.equal(stats.issues.recorded, 1000);
    assert.ok(stats.issues.dropped >= 100, `dropped ${stats.issues.dropped}`);
    assert.equal(stats.embeddings.skipped, true, 'embeddings: false skips both embedding phases');
    const c = await syncCounts(h.db.pool, syncId);
    assert.equal(c.files_with_vector, 0);
    assert.equal(c.chunks_with_vector, 0);
  });
});
