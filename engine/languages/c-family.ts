import type { CaptureView, ImportRef } from './plugin.ts';
import type { RepoIndex } from '../resolve/repo-index.ts';
import { filesEndingWith } from '../resolve/repo-index.ts';
import { shortest } from '../resolve/common.ts';
import { dirname, join } from '../resolve/paths.ts';
import { unquote } from './plugin.ts';
import { isSystemHeader } from './system-headers.ts';

export function readInclude(captures: CaptureView[]): ImportRef[] {
  const out: ImportRef[] = [];
  for (const c of captures) {
    if (c.name === 'import.source') out.push({ spec: unquote(c.text), line: c.row + 1 });
    if (c.name === 'import.system') out.push({ spec: unquote(c.text), line: c.row + 1, kind: 'system' });
    if (c.name === 'import.macro') out.push({ spec: c.text, line: c.row + 1, kind: 'macro' });
  }
  return out;
}

const INCLUDE = /^\s*#\s*include\s*(?:"([^"\n]+)"|<([^>\n]+)>)/;
const DEFINE = /^\s*#\s*define\s+([A-Za-z_]\w*)\s+(?:"([^"\n]+)"|<([^>\n]+)>)\s*(?:\/\/.*|\/\*.*\*\/\s*)?$/;

/**
 * Completes a file's includes: `#include NAME` takes the string (or `<...>`) of a `#define NAME "x.h"` of the same
 * file; an include line the grammar could not place (inside an initializer list or an enum body, where it is an
 * ERROR node) is read from the line itself, outside block comments.
 */
export function finishIncludes(imports: ImportRef[], lines: readonly string[]): ImportRef[] {
  const seen = new Set(imports.map((i) => i.line));
  const extra: ImportRef[] = [];
  const defines = new Map<string, ImportRef>();
  const wantDefines = imports.some((i) => i.kind === 'macro');
  let inComment = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const hasHash = line.includes('#');
    if (!inComment && !hasHash && !line.includes('/*')) continue;
    if (!inComment && hasHash && !seen.has(i + 1) && line.includes('include')) {
      const m = INCLUDE.exec(line);
      if (m)
        extra.push(m[1] !== undefined ? { spec: m[1], line: i + 1 } : { spec: m[2]!, line: i + 1, kind: 'system' });
    }
    if (!inComment && wantDefines && hasHash && line.includes('define')) {
      const d = DEFINE.exec(line);
      if (d)
        defines.set(d[1]!, d[2] !== undefined ? { spec: d[2], line: 0 } : { spec: d[3]!, line: 0, kind: 'system' });
    }
    inComment = commentStateAfter(line, inComment);
  }
  if (extra.length === 0 && !wantDefines) return imports;
  const out = imports.map((ref) => {
    if (ref.kind !== 'macro') return ref;
    const def = defines.get(ref.spec);
    return def ? { ...def, line: ref.line } : ref;
  });
  if (extra.length === 0) return out;
  return [...out, ...extra].sort((a, b) => a.line - b.line);
}

/** Whether a block comment is open at the end of the line (strings are not tracked: good enough for includes). */
function commentStateAfter(line: string, open: boolean): boolean {
  let inside = open;
  let i = 0;
  while (i < line.length) {
    if (inside) {
      const end = line.indexOf('*/', i);
      if (end === -1) return true;
      inside = false;
      i = end + 2;
    } else {
      const start = line.indexOf('/*', i);
      const lineComment = line.indexOf('//', i);
      if (start === -1 || (lineComment !== -1 && lineComment < start)) return false;
      inside = true;
      i = start + 2;
    }
  }
  return inside;
}

/**
 * C and C++ includes: a quoted include is looked up next to the including file, then as a path suffix anywhere in
 * the tree (include directories); an angle include only as a path suffix (a repository's own headers under an
 * include root). The nearest match by directory wins. A header of the C/C++ standard library or POSIX comes from
 * the system: it resolves only to the repository's own copy at that exact path from the root or under a top-level
 * include/ (a libc, or /usr/include analysed as a tree), never to a vendored file with the same suffix.
 */
export function resolveInclude(ref: ImportRef, from: string, repo: RepoIndex): string[] {
  if (ref.kind === 'macro') return [];
  if (ref.kind !== 'system') {
    const local = join(dirname(from), ref.spec);
    if (local !== null && repo.files.has(local)) return [local];
  }
  const spec = ref.spec.replace(/^(\.\/)+/, '');
  if (spec.startsWith('../')) return [];
  if (isSystemHeader(spec)) {
    for (const p of [spec, `include/${spec}`]) if (repo.files.has(p)) return [p];
    return [];
  }
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
