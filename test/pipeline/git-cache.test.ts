/**
 * The kept clone of a source (activities/sync/helpers/git-cache.ts) against real git repositories: it follows the source's
 * commits, fetches only what a commit adds, and names the files whose bytes cannot have changed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addCommit, createRepo, type TestRepo } from '../support/git-repos.ts';
import { TEST_URL_POLICY } from '../support/env.ts';
import { updateCachedCheckout } from '../../activities/sync/helpers/git-cache.ts';
import { Workspaces } from '../../activities/sync/helpers/workspace.ts';

function objects(dir: string): number {
  const out = execFileSync('git', ['-C', dir, 'count-objects', '-v'], { encoding: 'utf8' });
  const n = (k: string) => Number(new RegExp(`^${k}: (\\d+)$`, 'm').exec(out)![1]);
  return n('count') + n('in-pack');
}

/**
 * Runs `fn` with a `git` first on PATH that records its subcommand (the argument after `-C <dir>`, or after `-c k=v`)
 * before running the real one.
 */
async function countingGit<T>(fn: () => Promise<T>): Promise<{ commands: string[]; result: T }> {
  const bin = mkdtempSync(join(tmpdir(), 'ckg-git-'));
  const log = join(bin, 'log');
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  writeFileSync(
    join(bin, 'git'),
    `#!/bin/sh\nfor a in "$@"; do case "$prev" in -C|-c) prev=;; *) case "$a" in -C|-c) prev=$a;; *) echo "$a" >> '${log}'; break;; esac;; esac; done\nexec '${real}' "$@"\n`,
  );
  chmodSync(join(bin, 'git'), 0o755);
  const path = process.env.PATH;
  process.env.PATH = `${bin}:${path}`;
  try {
    const result = await fn();
    const commands = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
    return { commands, result };
  } finally {
    process.env.PATH = path;
    rmSync(bin, { recursive: true, force: true });
  }
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
      urls: TEST_URL_POLICY,
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
    assert.equal(next.edits, undefined, 'files were added and removed: the walk is redone');
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

  it('a re-sync of the commit the clone holds runs one git command, the fetch, and rewrites nothing', async () => {
    await update(repo.head);
    const calls = await countingGit(() => update(repo.head));
    assert.deepEqual(calls.commands, ['fetch']);
    assert.equal(calls.result?.commitSha, repo.head);
    assert.equal(calls.result?.rewritten, false);
    assert.equal(calls.result?.unchanged?.size, 42);
    // The same commit read by an older sync: git still names what changed since that sync's commit.
    const older = execFileSync('git', ['-C', repo.dir, 'rev-parse', 'HEAD~1'], { encoding: 'utf8' }).trim();
    const since = await countingGit(() => update(older));
    assert.deepEqual(since.commands, ['fetch', 'diff-tree']);
    assert.equal(since.result?.unchanged?.size, 40 - 2 + 1);
    // A clone whose HEAD no longer names the commit (moved by hand) is brought back by a checkout.
    execFileSync('git', ['-C', dir, 'checkout', '-q', '--detach', older]);
    const moved = await countingGit(() => update(repo.head));
    assert.deepEqual(moved.commands, ['fetch', 'log', 'ls-tree', 'checkout']);
    assert.equal(moved.result?.rewritten, true);
    assert.equal(readFileSync(join(dir, 'pkg/f0.ts'), 'utf8'), 'export const v0 = 100;\n');
    // The next commit: asked of git again, whatever was remembered.
    addCommit(repo, { 'pkg/f2.ts': 'export const v2 = 200;\n' });
    const next = await countingGit(() => update(moved.result!.commitSha));
    assert.deepEqual(next.commands, ['fetch', 'log', 'update-ref', 'ls-tree', 'checkout', 'diff-tree']);
    assert.equal(next.result?.commitSha, repo.head);
    assert.ok(next.result?.unchanged && !next.result.unchanged.has('pkg/f2.ts'));
    // Only a file's content changed: the edit is named, so the clone's walk can be refreshed rather than redone.
    assert.deepEqual(next.result.edits, { since: moved.result.commitSha, paths: new Set(['pkg/f2.ts']) });
    assert.equal(readFileSync(join(dir, 'pkg/f2.ts'), 'utf8'), 'export const v2 = 200;\n');
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
      // The walk of the clone is kept with it, under its key (commit and walk options).
      const tree = { root: a.dir, files: [], issues: [], repo: {} };
      ws.keepTree('src-1', 'c1', tree);
      assert.equal(ws.keptTree('src-1', 'c1'), tree);
      assert.equal(ws.keptTree('src-1', 'c2'), undefined, 'another commit or other walk options');
      // sync-b's update fails: the half-updated clone is not kept, nor its walk.
      await ws.release('sync-b');
      assert.equal(ws.acquireCache('src-1', 'sync-c')?.reset, true);
      assert.equal(ws.keptTree('src-1', 'c1'), undefined);
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
