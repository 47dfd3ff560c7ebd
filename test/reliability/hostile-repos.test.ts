/**
 * Issue 10 regressions: hostile repositories. One path longer than 4096 characters failed the whole sync at cloning
 * (never retried, the repository could never be indexed); a file name with invalid UTF-8 was dropped with a
 * misleading ENOENT issue; clone folders of failed or killed attempts stayed on disk and nothing swept them.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { discover } from '../../engine/discover.ts';
import type { EngineIssue } from '../../engine/types.ts';
import { checkoutRef as cloneRepository } from '../../activities/sync/helpers/git-checkout.ts';
import { createHarness, insertPendingSync, insertSource, runSync, type Harness } from '../support/pipeline.ts';
import { TEST_URL_POLICY } from '../support/env.ts';

const LONG =
  Array.from({ length: 21 }, (_, i) => `${String(i).padStart(2, '0')}${'d'.repeat(198)}`).join('/') + '/f.ts';
const BAD_NAME = Buffer.concat([Buffer.from('bad-'), Buffer.from([0xff, 0xfe]), Buffer.from('.ts')]);

/** A repository whose one commit holds ok.ts, a file at LONG (made with plumbing: no file system holds it) and a
 * file whose name is not UTF-8. */
function hostileRepo(root: string): string {
  const dir = join(root, 'src');
  const git = (args: string[], input?: string) =>
    execFileSync('git', ['-C', dir, ...args], {
      input,
      encoding: 'utf8',
      env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' },
    }).trim();
  mkdirSync(dir);
  git(['init', '-q', '-b', 'main']);
  writeFileSync(join(dir, 'ok.ts'), 'export const ok = 1;\n');
  // Node cannot write a non-UTF-8 name from a string: write it with a Buffer path.
  writeFileSync(Buffer.concat([Buffer.from(dir + '/'), BAD_NAME]), 'export const bad = 2;\n');
  git(['add', '-A']);
  const blob = git(['hash-object', '-w', '--stdin'], 'export const deep = 3;\n');
  git(['update-index', '--add', '--cacheinfo', `100644,${blob},${LONG}`]);
  git(['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'hostile']);
  return dir;
}

describe('reliability: hostile repositories', () => {
  let root: string;
  let repo: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'ckg-hostile-'));
    repo = hostileRepo(root);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('a path longer than 4096 bytes is left out of the checkout, the rest is checked out', async () => {
    const dir = join(root, 'clone');
    const r = await cloneRepository({
      url: repo,
      ref: 'main',
      token: null,
      urls: TEST_URL_POLICY,
      dir,
      timeoutMs: 60_000,
      signal: new AbortController().signal,
    });
    assert.match(r.commitSha, /^[0-9a-f]{40}$/);
    assert.deepEqual(
      r.skipped.map((s) => s.path),
      [LONG],
    );
    assert.match(r.skipped[0]!.reason, /4096/);
    assert.ok(existsSync(join(dir, 'ok.ts')));
  });

  it('a file name that is not UTF-8 is reported as such (its bytes shown as %XX), not as ENOENT', () => {
    const issues: EngineIssue[] = [];
    const files = discover(repo, [], (i) => issues.push(i));
    assert.deepEqual(
      files.map((f) => f.path),
      ['ok.ts'],
    );
    assert.deepEqual(
      issues.map((i) => [i.code, i.file_path]),
      [['invalid_file_name', 'bad-%FF%FE.ts']],
    );
    assert.doesNotMatch(issues[0]!.message, /ENOENT/);
  });

  it('a broken symlink is an issue with repository-relative paths only, never the clone folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ckg-broken-link-'));
    try {
      writeFileSync(join(dir, 'a.ts'), 'export const a = 1;\n');
      symlinkSync('missing/target.ts', join(dir, 'link.ts'));
      const issues: EngineIssue[] = [];
      discover(dir, [], (i) => issues.push(i));
      assert.deepEqual(
        issues.map((i) => [i.code, i.file_path]),
        [['broken_symlink', 'link.ts']],
      );
      assert.match(issues[0]!.message, /symlink target "missing\/target\.ts" does not exist: ENOENT/);
      assert.ok(!issues[0]!.message.includes(dir) && !issues[0]!.message.includes(tmpdir()), issues[0]!.message);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('through a real sync', () => {
    let h: Harness;
    before(async () => {
      h = await createHarness();
      await h.startWorker();
    });
    after(() => h.close());

    it('the sync completes with a path_unrepresentable issue for the long path and an invalid_file_name issue', async () => {
      const sourceId = await insertSource(h.db.pool, { url: repo });
      const syncId = await insertPendingSync(h.db.pool, sourceId);
      const result = await runSync(h, sourceId, syncId);
      assert.equal(result.status, 'completed', JSON.stringify(result));
      const found = await h.db.pool.query<{ phase: string; code: string; file_path: string }>(
        `SELECT phase, code, context->>'file_path' AS file_path FROM sync_issues WHERE sync_id = $1 ORDER BY id`,
        [syncId],
      );
      assert.deepEqual(
        found.rows.map((i) => [i.phase, i.code, i.file_path]),
        [
          ['cloning', 'path_unrepresentable', LONG],
          ['discovery', 'invalid_file_name', 'bad-%FF%FE.ts'],
        ],
      );
      const files = await h.db.pool.query<{ file_path: string }>(
        `SELECT file_path FROM file_records WHERE sync_id = $1`,
        [syncId],
      );
      assert.deepEqual(
        files.rows.map((f) => f.file_path),
        ['ok.ts'],
      );
    });
  });
});
