import type { CaptureView, ImportRef } from './plugin.ts';
import type { RepoIndex } from '../resolve/repo-index.ts';
import { filesEndingWith } from '../resolve/repo-index.ts';
import { shortest } from '../resolve/common.ts';
import { dirname, join } from '../resolve/paths.ts';
import { unquote } from './plugin.ts';

export function readInclude(captures: CaptureView[]): ImportRef[] {
  const out: ImportRef[] = [];
  for (const c of captures) {
    if (c.name === 'import.source') out.push({ spec: unquote(c.text), line: c.row + 1 });
    if (c.name === 'import.system') out.push({ spec: unquote(c.text), line: c.row + 1, kind: 'system' });
  }
  return out;
}

/**
 * C and C++ includes: a quoted include is looked up next to the including file, then as a path suffix anywhere in
 * the tree (include directories); an angle include only as a path suffix (a repository's own headers under an
 * include root). The nearest match by directory wins.
 */
export function resolveInclude(ref: ImportRef, from: string, repo: RepoIndex): string[] {
  if (ref.kind !== 'system') {
    const local = join(dirname(from), ref.spec);
    if (local !== null && repo.files.has(local)) return [local];
  }
  const spec = ref.spec.replace(/^(\.\/)+/, '');
  if (spec.startsWith('../')) return [];
  const hits = filesEndingWith(repo, spec);
  if (hits.length === 0) return [];
  if (hits.length === 1) return hits;
  const fromDir = dirname(from);
  const shared = (p: string): number => {
    let n = 0;
    const a = fromDir.split('/');
    const b = dirname(p).split('/');
    while (n < a.length && n < b.length && a[n] === b[n]) n++;
    return n;
  };
  const best = Math.max(...hits.map(shared));
  return [shortest(hits.filter((h) => shared(h) === best))];
}
