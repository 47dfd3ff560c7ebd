/**
 * Corpora of the search evaluation: real code already on every machine, copied at run time into temporary git
 * repositories (never committed here), registered as sources of the running stack and synced through its API.
 * A corpus whose source already has a completed sync of the same commit is not synced again.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { cachedRepo } from '../support/snapshot.ts';

export interface Corpus {
  /** Source name (owner `search-eval`). */
  name: string;
  /** The query file (bench/search/queries/<queries>.tsv). */
  queries: string;
  /** Absolute paths copied into the repository, each to the relative path beside it. */
  copy: Array<[string, string]>;
  /** Copy only the files this accepts (absolute path), when given. */
  accept?: (path: string) => boolean;
}

/**
 * The corpora of a run. `small` (the real-model runs: a CPU model embeds ~10 chunks a second here): the Go corpus
 * is the non-test files of the folders the Go queries name (not recursive), the others as they are; each under a
 * name of its own (`<name>-<tag>`), so its chunks are embedded by the model of that run.
 */
export function corporaFor(opts: { small: boolean; tag: string }): Corpus[] {
  const all = corpora();
  if (!opts.small) return all;
  return all.map((c) => {
    const named = { ...c, name: `${c.name}-${opts.tag}` };
    if (c.name !== 'go-std') return named;
    const root = goroot();
    const dirs = new Set(
      readFileSync(new URL('./queries/go-std.tsv', import.meta.url), 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '' && !l.startsWith('#'))
        .map((l) => dirname(l.split('\t')[2]!)),
    );
    return {
      ...named,
      copy: [...dirs].sort().map((d): [string, string] => [join(root, 'src', d), d]),
      accept: (p) => {
        const rel = relative(join(root, 'src'), p);
        if (dirs.has(rel)) return true;
        return dirs.has(dirname(rel)) && p.endsWith('.go') && !p.endsWith('_test.go');
      },
    };
  });
}

const goroot = () => execFileSync('go', ['env', 'GOROOT'], { encoding: 'utf8' }).trim();
const repoRoot = new URL('../..', import.meta.url).pathname;

export function corpora(): Corpus[] {
  const py = '/usr/lib/python3.11';
  const pyParts = ['json', 'http', 'email', 'urllib', 'asyncio', 'logging', 'collections', 'concurrent'];
  const pyFiles = [
    'argparse.py',
    'shutil.py',
    'tempfile.py',
    'textwrap.py',
    'difflib.py',
    'csv.py',
    'base64.py',
    'bisect.py',
    'heapq.py',
    'functools.py',
    'glob.py',
    'fnmatch.py',
    'posixpath.py',
    'subprocess.py',
    'datetime.py',
    'calendar.py',
    'string.py',
    'random.py',
    'statistics.py',
    'fractions.py',
    'ipaddress.py',
    'uuid.py',
    'secrets.py',
    'hashlib.py',
    'hmac.py',
    'gzip.py',
    'zipfile.py',
    'tarfile.py',
    'configparser.py',
    'shlex.py',
    'copy.py',
    'pprint.py',
    'inspect.py',
    'dataclasses.py',
    'enum.py',
    'typing.py',
    'pathlib.py',
    'socket.py',
    'threading.py',
    'queue.py',
    'sched.py',
    'traceback.py',
    'warnings.py',
    'weakref.py',
    'contextlib.py',
  ];
  const ts = join(repoRoot, 'node_modules/@temporalio');
  return [
    { name: 'go-std', queries: 'go-std', copy: [[join(goroot(), 'src'), '.']] },
    {
      name: 'cpython-lib',
      queries: 'cpython-lib',
      copy: [
        ...pyParts.map((p): [string, string] => [join(py, p), p]),
        ...pyFiles.map((f): [string, string] => [join(py, f), f]),
      ],
    },
    {
      name: 'temporal-ts',
      queries: 'temporal-ts',
      copy: ['client', 'common', 'worker', 'workflow', 'activity'].map((p): [string, string] => [
        join(ts, p, 'src'),
        p,
      ]),
    },
  ];
}

/** A git repository holding the corpus, reused across runs (same content, same commit). */
export function gitRepoOf(corpus: Corpus): string {
  return cachedRepo(
    corpus.name,
    (wip) => {
      for (const [from, to] of corpus.copy) {
        const dest = join(wip, to);
        mkdirSync(dirname(dest), { recursive: true });
        cpSync(from, dest, {
          recursive: true,
          verbatimSymlinks: true,
          filter: (p) => !p.includes('__pycache__') && !p.endsWith('/testdata/fuzz') && (corpus.accept?.(p) ?? true),
        });
      }
    },
    'ckg-search-eval',
  );
}
