/**
 * The kept clone of a source (activities/sync/git-cache.ts) against real git repositories: it follows the source's
 * commits, fetches only what a commit adds, and names the files whose bytes cannot have changed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addCommit, createRepo, type TestRepo } from '../support/git-repos.ts';
import { updateCachedCheckout } from '../../activities/sync/git-cache.ts';
import { Workspaces } from '../../activities/sync/workspace.ts';

function objects(dir: string): number {
  const out = execFileSync('git', ['-C', dir, 'count-objects', '-v'], { encoding: 'utf8' });
  const n = (k: string) => Number(new RegExp(`^${k}: (\\d+)$`, 'm').exec(out)![1]);
  return n('count') + n('in-pack');
}

describe('the kept clone of a source', () => {
  let repo: TestRepo;
  let root: string;
  let dir: string;
  const signal = new AbortController().signal;
  const update = (previousCommit: string | null, reset = false) =>
    updateCachedCheckout({
      url: repo.dir,
      ref: 'main',
      token: null,
      dir,
      timeoutMs: 60_000,
      signal,
      previousCommit,
      reset,
    });

  before(() => {
    const files: Record<string, string> = { 'README.md': '# r\n', 'src/target.ts': 'export const t = 1;\n' };
    for (let i = 0; i < 40; i++) files[`pkg/f${i}.ts`] = `export const v${i} = ${i};\n`;
    repo = createRepo({ ...files, 'src/link.ts': { symlink: 'target.ts' } });
    root = mkdtempSync(join(tmpdir(), 'ckg-kept-'));
    dir = join(root, 'clone');
  });
  after(() => {
    repo.remove();
    rmSync(root, { recursive: true, force: true });
  });

  it('a first update is a whole checkout; without a previous commit nothing is known unchanged', async () => {
    const first = await update(null, true);
    assert.ok(first);
    assert.equal(first.commitSha, repo.head);
    assert.equal(first.unchanged, null);
    assert.equal(readFileSync(join(dir, 'pkg/f3.ts'), 'utf8'), 'export const v3 = 3;\n');
  });

  it('the next commit: only its new objects are fetched, and git names what changed', async () => {
    const previous = repo.head;
    const before = objects(dir);
    rmSync(join(repo.dir, 'pkg/f1.ts'));
    addCommit(repo, { 'pkg/f0.ts': 'export const v0 = 100;\n', 'pkg/new.ts': 'x\n', 'src/target.ts': 'changed\n' });
    const next = await update(previous);
    assert.ok(next?.unchanged);
    assert.equal(next.commitSha, repo.head);
    // A commit, 3 trees (root, pkg, src) and 3 blobs: not the 40-odd objects of the whole tree again.
    assert.ok(objects(dir) - before <= 8, `fetched ${objects(dir) - before} objects`);
    assert.equal(readFileSync(join(dir, 'pkg/f0.ts'), 'utf8'), 'export const v0 = 100;\n');
    assert.equal(existsSync(join(dir, 'pkg/f1.ts')), false, 'a removed file leaves the checkout');
    for (const p of ['pkg/f0.ts', 'pkg/f1.ts', 'pkg/new.ts', 'src/target.ts']) assert.ok(!next.unchanged.has(p), p);
    // A symlink is never known unchanged: its content is its target's, which changed here.
    assert.ok(!next.unchanged.has('src/link.ts'));
    assert.ok(next.unchanged.has('pkg/f2.ts') && next.unchanged.has('README.md'));
    assert.equal(next.unchanged.size, 40 - 2 + 1);
  });

  it('the same commit again: every regular file is known unchanged and the checkout is whole', async () => {
    const again = await update(repo.head);
    assert.ok(again?.unchanged);
    assert.equal(again.commitSha, repo.head);
    // README.md, src/target.ts, pkg/f0..f39 without f1, pkg/new.ts; never the symlink.
    assert.equal(again.unchanged.size, 42);
    assert.ok(!again.unchanged.has('src/link.ts'));
    assert.equal(readFileSync(join(dir, 'pkg/f0.ts'), 'utf8'), 'export const v0 = 100;\n');
    assert.equal(readFileSync(join(dir, 'src/link.ts'), 'utf8'), 'changed\n');
    assert.equal(existsSync(join(dir, 'pkg/f1.ts')), false);
    // A sync that read an older commit than the clone holds: git names what changed since then.
    const older = execFileSync('git', ['-C', repo.dir, 'rev-parse', 'HEAD~1'], { encoding: 'utf8' }).trim();
    const since = await update(older);
    assert.equal(since?.unchanged?.size, 40 - 2 + 1);
  });

  it('nothing is known unchanged when a .gitattributes changed or the previous commit is not in the clone', async () => {
    const previous = repo.head;
    addCommit(repo, { '.gitattributes': '*.md diff=markdown\n' });
    assert.equal((await update(previous))!.unchanged, null);
    assert.equal((await update('0'.repeat(40)))!.unchanged, null);
  });
});

describe('kept clones in a worker', () => {
  it('one sync holds a source clone at a time, a release keeps it, a failed update does not', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ckg-kept-ws-'));
    const ws = new Workspaces(root, 'q', 2);
    try {
      const a = ws.acquireCache('src-1', 'sync-a');
      assert.ok(a);
      assert.equal(a.reset, true, 'a new clone starts empty');
      assert.equal(ws.acquireCache('src-1', 'sync-b'), null, 'held by sync-a');
      assert.equal(ws.cacheHolder('src-1'), 'sync-a');
      ws.cacheReady('src-1');
      await ws.release('sync-a');
      const b = ws.acquireCache('src-1', 'sync-b');
      assert.deepEqual(b, { dir: a.dir, reset: false }, 'kept after a clean update');
      // sync-b's update fails: the half-updated clone is not kept.
      await ws.release('sync-b');
      assert.equal(ws.acquireCache('src-1', 'sync-c')?.reset, true);
      await ws.release('sync-c');
      // Beyond the limit the least recently used clone goes.
      for (const s of ['src-2', 'src-3']) {
        ws.acquireCache(s, `sync-${s}`);
        ws.cacheReady(s);
        await ws.release(`sync-${s}`);
      }
      ws.acquireCache('src-4', 'sync-4');
      assert.equal(ws.acquireCache('src-3', 'sync-3b')?.reset, false, 'kept');
      assert.equal(ws.acquireCache('src-2', 'sync-2b')?.reset, true, 'the least recently used went for src-4');
      const none = new Workspaces(root, 'q', 0);
      assert.equal(none.acquireCache('src-1', 'y'), null, 'WORKER_KEPT_CLONES=0');
      await none.close();
    } finally {
      await ws.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
