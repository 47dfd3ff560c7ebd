import type { ImportRef } from './plugin.ts';
import type { RepoIndex } from '../resolve/repo-index.ts';
import { firstExisting } from '../resolve/common.ts';
import { dirname, join } from '../resolve/paths.ts';

const EXTS = ['.ts', '.tsx', '.d.ts', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '.json'];

/** A path with the Node/TypeScript lookups: as written, with an extension added, `.js` written for `.ts`, index files. */
function candidates(base: string): string[] {
  const out = [base, ...EXTS.map((e) => base + e)];
  const m = /\.(m|c)?jsx?$/.exec(base);
  if (m) {
    const stem = base.slice(0, m.index);
    const mod = m[1] ?? '';
    out.push(`${stem}.${mod}ts`, `${stem}.tsx`, `${stem}.d.ts`);
  }
  out.push(...EXTS.map((e) => `${base}/index${e}`));
  return out;
}

/**
 * JavaScript and TypeScript: relative specifiers from the importing file's directory; bare specifiers through the
 * nearest tsconfig/jsconfig `paths` and `baseUrl`; anything else is a package (external).
 */
export function resolveJsImport(ref: ImportRef, from: string, repo: RepoIndex): string[] {
  const spec = ref.spec.split('?')[0]!;
  if (spec.startsWith('./') || spec.startsWith('../') || spec === '.' || spec === '..') {
    const base = join(dirname(from), spec);
    return base === null ? [] : firstExisting(repo, candidates(base));
  }
  if (spec.startsWith('/')) return firstExisting(repo, candidates(spec.slice(1)));
  const config = repo.tsconfigs.find((c) => c.dir === '' || from.startsWith(c.dir + '/'));
  if (!config) return [];
  const base = config.baseUrl ?? config.dir;
  for (const { pattern, targets } of config.paths) {
    const star = pattern.indexOf('*');
    let rest: string | null = null;
    if (star === -1) rest = pattern === spec ? '' : null;
    else if (spec.startsWith(pattern.slice(0, star)) && spec.endsWith(pattern.slice(star + 1))) {
      rest = spec.slice(star, spec.length - (pattern.length - star - 1));
    }
    if (rest === null) continue;
    for (const target of targets) {
      const p = join(base, target.replace('*', rest));
      const hit = p === null ? [] : firstExisting(repo, candidates(p));
      if (hit.length > 0) return hit;
    }
  }
  if (config.baseUrl !== null) {
    const p = join(config.baseUrl, spec);
    if (p !== null) return firstExisting(repo, candidates(p));
  }
  return [];
}
