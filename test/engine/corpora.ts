/**
 * Real code already on the machine, used by the corpus tests (a bounded sample) and the benchmark (everything).
 * Nothing of it is committed: files are copied into a temporary directory at run time.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Corpus {
  name: string;
  root: string;
  /** Which files of the root belong to the corpus. */
  accept: (rel: string) => boolean;
}

function sh(cmd: string, args: string[]): string {
  return execFileSync(cmd, args, { encoding: 'utf8' }).trim();
}

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** The corpora of the issue; throws with a clear message when one is missing (the machine is expected to have all). */
export function corpora(): Corpus[] {
  const goroot = sh('go', ['env', 'GOROOT']);
  const pyStdlib = sh('python3', ['-c', 'import sysconfig; print(sysconfig.get_paths()["stdlib"])']);
  const list: Corpus[] = [
    {
      name: 'go-std',
      root: join(goroot, 'src'),
      accept: (r) => r.endsWith('.go') || r === 'go.mod' || r.endsWith('/go.mod'),
    },
    { name: 'cpython-stdlib', root: pyStdlib, accept: (r) => r.endsWith('.py') && !r.startsWith('site-packages/') },
    {
      name: 'typescript-node_modules',
      root: join(repoRoot, 'node_modules'),
      accept: (r) => /\.(ts|tsx|mts|cts)$/.test(r) && !r.includes('/.'),
    },
    { name: 'c-headers', root: '/usr/include', accept: (r) => /\.(h|hpp|hh)$/.test(r) },
  ];
  for (const c of list) if (!existsSync(c.root)) throw new Error(`corpus ${c.name} not found at ${c.root}`);
  return list;
}

/** Every accepted regular file of the corpus, sorted (symlinks are skipped). */
export function listCorpus(c: Corpus): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const abs = join(dir, name);
      const st = statSync(abs, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) {
        if (name !== '.git' && name !== '__pycache__') walk(abs);
      } else if (st.isFile()) {
        const rel = relative(c.root, abs);
        if (c.accept(rel)) out.push(rel);
      }
    }
  };
  walk(c.root);
  return out;
}

/** Every k-th file, so a sample spreads across the corpus; at most `maxFiles`. */
export function sample(files: string[], maxFiles: number): string[] {
  if (files.length <= maxFiles) return files;
  const step = files.length / maxFiles;
  return Array.from({ length: maxFiles }, (_, i) => files[Math.floor(i * step)]!);
}

export function copyInto(c: Corpus, files: string[], dest: string): number {
  let bytes = 0;
  for (const rel of files) {
    const to = join(dest, rel);
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(join(c.root, rel), to);
    bytes += statSync(to).size;
  }
  return bytes;
}
