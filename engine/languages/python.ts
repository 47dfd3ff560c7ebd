import type { CaptureView, ImportRef, LanguagePlugin } from './plugin.ts';
import type { RepoIndex } from '../resolve/repo-index.ts';
import { requireGrammar } from './load.ts';
import { firstExisting } from '../resolve/common.ts';
import { dirname, join } from '../resolve/paths.ts';

/** `import a.b` gives a.b; `from m import x, y` gives m.x and m.y (kind 'from'): x may be a submodule or a name. */
function readImport(captures: CaptureView[]): ImportRef[] {
  const from = captures.find((c) => c.name === 'import.from');
  const out: ImportRef[] = [];
  for (const c of captures) {
    if (c.name === 'import.module') out.push({ spec: c.text, line: c.row + 1 });
    if (c.name === 'import.name' && from) out.push({ spec: `${from.text}|${c.text}`, line: c.row + 1, kind: 'from' });
  }
  if (from && out.length === 0) out.push({ spec: `${from.text}|*`, line: from.row + 1, kind: 'from' });
  return out;
}

function moduleFile(repo: RepoIndex, base: string | null): string | null {
  if (base === null) return null;
  const hit = firstExisting(repo, [`${base}.py`, `${base}/__init__.py`, `${base}.pyi`, `${base}/__init__.pyi`]);
  return hit[0] ?? null;
}

const within = (dir: string, file: string): boolean => dir === '' || file.startsWith(dir + '/');

/**
 * The import roots (sys.path) for a file, in lookup order: the file's own directory when it is a script (not inside
 * a package: inside one, `import json` is the standard library, never a sibling json.py); the directory above the
 * file's top package; the enclosing (sub-)project (pyproject.toml, setup.py or setup.cfg) and its src/; the
 * repository root, src/ and lib/; then the other projects of the repository (installed side by side in a monorepo).
 */
function roots(repo: RepoIndex, from: string): string[] {
  const out = new Set<string>();
  const own = dirname(from);
  const inPackage = repo.files.has(own === '' ? '__init__.py' : `${own}/__init__.py`);
  if (!inPackage) out.add(own);
  let dir = own;
  while (dir !== '' && repo.files.has(`${dir}/__init__.py`)) dir = dirname(dir);
  out.add(dir);
  const mine = repo.pythonProjects.filter((p) => within(p, from));
  for (const p of mine) for (const r of [p, p === '' ? 'src' : `${p}/src`]) out.add(r);
  for (const r of ['', 'src', 'lib']) out.add(r);
  for (const p of repo.pythonProjects) if (!mine.includes(p)) for (const r of [p, `${p}/src`]) out.add(r);
  return [...out];
}

function resolveUncached(ref: ImportRef, from: string, repo: RepoIndex): string[] {
  let module = ref.spec;
  let name: string | null = null;
  if (ref.kind === 'from') {
    const bar = ref.spec.indexOf('|');
    module = ref.spec.slice(0, bar);
    name = ref.spec.slice(bar + 1);
    if (name === '*') name = null;
  }
  const dots = /^\.*/.exec(module)![0].length;
  const rel = module
    .slice(dots)
    .split('.')
    .filter((s) => s.length > 0)
    .join('/');
  const bases: string[] = [];
  if (dots > 0) {
    let dir: string | null = dirname(from);
    for (let i = 1; i < dots && dir !== null; i++) dir = dir === '' ? null : dirname(dir);
    if (dir === null) return [];
    bases.push(rel === '' ? dir : dir === '' ? rel : `${dir}/${rel}`);
  } else {
    for (const r of roots(repo, from)) bases.push(r === '' ? rel : `${r}/${rel}`);
  }
  for (const base of bases) {
    if (name !== null) {
      const sub = moduleFile(repo, join(base, name));
      if (sub !== null) return [sub];
    }
    const mod = base === '' ? null : moduleFile(repo, base);
    if (mod !== null) return [mod];
    if (base === '' && dots > 0 && repo.files.has('__init__.py')) return ['__init__.py'];
  }
  return [];
}

/**
 * What an import resolves to depends on the importing file only through its directory (relative imports start
 * there; `roots` depends on it alone), so resolutions are remembered per tree index and (directory, import): the
 * files of one directory import much the same modules (CPython's Lib/test: ~700 files), and a re-sync resolves the
 * imports of every unchanged file again.
 */
const resolved = new WeakMap<RepoIndex, Map<string, readonly string[]>>();

function resolve(ref: ImportRef, from: string, repo: RepoIndex): string[] {
  let memo = resolved.get(repo);
  if (!memo) resolved.set(repo, (memo = new Map<string, readonly string[]>()));
  const key = `${dirname(from)}\0${ref.kind ?? ''}\0${ref.spec}`;
  let hit = memo.get(key);
  if (!hit) memo.set(key, (hit = resolveUncached(ref, from, repo)));
  return [...hit];
}

export const python: LanguagePlugin = {
  id: 'python',
  extensions: ['.py', '.pyi', '.pyw'],
  interpreters: ['python', 'python2', 'python3'],
  queryFile: 'python.scm',
  grammar: () => Promise.resolve(requireGrammar('tree-sitter-python')),
  readImport,
  isExported: (def) => !def.name.startsWith('_'),
  resolve,
};
