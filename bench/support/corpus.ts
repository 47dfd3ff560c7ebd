/**
 * The real trees the sync benchmarks copy into a git repository at run time (never committed here): CPython's
 * standard library of the machine's python3 (without site-packages, __pycache__ and the build config) and
 * $(go env GOROOT)/src.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Corpus {
  src: string;
  skip: (path: string) => boolean;
}

export const CORPORA: Record<'python' | 'go', () => Corpus> = {
  python: () => {
    const src = execFileSync('python3', ['-c', 'import sysconfig; print(sysconfig.get_paths()["stdlib"])'], {
      encoding: 'utf8',
    }).trim();
    if (!existsSync(src)) throw new Error(`no CPython standard library at ${src}`);
    return { src, skip: (p) => /\/(site-packages|__pycache__|config-[^/]*)(\/|$)/.test(p) || p.endsWith('.pyc') };
  },
  go: () => ({
    src: join(execFileSync('go', ['env', 'GOROOT'], { encoding: 'utf8' }).trim(), 'src'),
    skip: () => false,
  }),
};

/** The file the benchmarks' "one changed file" commits change in each corpus. */
export const CHANGED_FILE: Record<'python' | 'go', string> = { python: 'json/decoder.py', go: 'strings/strings.go' };

/** git in `dir` with a fixed author, for the benchmarks' own commits. */
export function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'bench',
      GIT_AUTHOR_EMAIL: 'b@x',
      GIT_COMMITTER_NAME: 'bench',
      GIT_COMMITTER_EMAIL: 'b@x',
    },
  });
}

/** A git repository under the temp folder holding one commit of the corpus. */
export function corpusRepo(prefix: string, { src, skip }: Corpus): string {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  cpSync(src, dir, { recursive: true, verbatimSymlinks: true, filter: (p) => !skip(p) });
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A', '-f');
  git(dir, 'commit', '-q', '-m', 'snapshot');
  return dir;
}
