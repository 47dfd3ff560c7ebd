/**
 * Git snapshots of folders for benchmarks: a corpus (the Go standard library, CPython's Lib, …) is copied into a
 * temporary folder and committed once, so it can be synced as a repository without touching the original.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@localhost',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@localhost',
};

/** Runs git in `dir` with a fixed identity; returns its standard output. */
export function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    env: { ...process.env, ...GIT_ENV },
  });
}

/** Makes `dir` a repository with everything in it committed on `main`. */
export function commitAll(dir: string): void {
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A', '-f');
  git(dir, 'commit', '-q', '-m', 'snapshot');
}

/**
 * A repository at <tmp>/<prefix>-<key>, made once by `fill` (which copies the files into the folder it is given) and
 * reused by later runs: the same content gives the same commit. Built in a scratch folder and moved into place, so an
 * interrupted run leaves nothing half made under the final name.
 */
export function cachedRepo(key: string, fill: (dir: string) => void, prefix = 'ckg-bench'): string {
  const dir = join(tmpdir(), `${prefix}-${key}`);
  if (existsSync(join(dir, '.git'))) return dir;
  const wip = mkdtempSync(join(tmpdir(), `${prefix}-wip-`));
  fill(wip);
  commitAll(wip);
  rmSync(dir, { recursive: true, force: true });
  execFileSync('mv', [wip, dir]);
  return dir;
}

/** A reused snapshot of the folder `src` (see cachedRepo). */
export function snapshotOf(src: string): string {
  return cachedRepo(src.replaceAll('/', '_'), (dir) => cpSync(src, dir, { recursive: true, verbatimSymlinks: true }));
}

/** A new snapshot of `src` in a folder of its own, for a run that writes into the repository; the caller removes it. */
export function freshSnapshotOf(src: string, prefix = 'ckg-bench-copy-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cpSync(src, dir, { recursive: true, verbatimSymlinks: true });
  commitAll(dir);
  return dir;
}
