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

/** Directories import roots may hang from: the repository root, src/, and the parent of the file's top package. */
function roots(repo: RepoIndex, from: string): string[] {
  const out = new Set<string>(['', 'src', 'lib']);
  let dir = dirname(from);
  while (dir !== '' && repo.files.has(`${dir}/__init__.py`)) dir = dirname(dir);
  out.add(dir);
  out.add(dirname(from));
  return [...out];
}

function resolve(ref: ImportRef, from: string, repo: RepoIndex): string[] {
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
