import type { ImportRef } from './plugin.ts';
import type { RepoIndex } from '../resolve/repo-index.ts';
import { exportsEntry } from '../resolve/repo-index.ts';
import { dirname, join } from '../resolve/paths.ts';

const EXTS = ['.ts', '.tsx', '.d.ts', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '.json'];

const isTs = (path: string): boolean => /\.(m|c)?tsx?$/.test(path);

/** A path as a file: as written, with an extension added, `.js` written for a `.ts` source. */
function fileCandidates(base: string): string[] {
  const out = base === '' ? [] : [base, ...EXTS.map((e) => base + e)];
  const m = /\.(m|c)?jsx?$/.exec(base);
  if (m) {
    const stem = base.slice(0, m.index);
    const mod = m[1] ?? '';
    out.push(`${stem}.${mod}ts`, `${stem}.tsx`, `${stem}.d.ts`);
  }
  return out;
}

const indexCandidates = (dir: string): string[] => EXTS.map((e) => (dir === '' ? `index${e}` : `${dir}/index${e}`));

/**
 * Node's and TypeScript's lookup of a path: the file (extensions added), else the directory: its package.json entry
 * (`types`/`typings` first for a TypeScript importer, then `main`) as a file or a directory with an index, else the
 * directory's index file.
 */
function lookup(repo: RepoIndex, base: string, ts: boolean): string | null {
  for (const c of fileCandidates(base)) if (repo.files.has(c)) return c;
  const pkg = repo.packages.get(base);
  if (pkg) {
    for (const entry of ts ? [pkg.types, pkg.main] : [pkg.main]) {
      const p = entry === null ? null : join(base, entry);
      if (p === null) continue;
      for (const c of [...fileCandidates(p), ...indexCandidates(p)]) if (repo.files.has(c)) return c;
    }
  }
  for (const c of indexCandidates(base)) if (repo.files.has(c)) return c;
  return null;
}

const one = (hit: string | null): string[] => (hit === null ? [] : [hit]);

/** `name/sub` through the package's `exports` subpaths: an exact key, else the longest `*` pattern. */
function exportsSubpath(
  subpaths: ReadonlyArray<{ key: string; value: unknown }>,
  sub: string,
  ts: boolean,
  custom: readonly string[],
): string | null {
  const exact = subpaths.find((e) => e.key === sub);
  if (exact) return exportsEntry(exact.value, ts, custom);
  let best: { key: string; value: unknown; star: string } | null = null;
  for (const e of subpaths) {
    const at = e.key.indexOf('*');
    if (at === -1) continue;
    const [head, tail] = [e.key.slice(0, at), e.key.slice(at + 1)];
    if (sub.length < head.length + tail.length || !sub.startsWith(head) || !sub.endsWith(tail)) continue;
    if (best === null || head.length > best.key.indexOf('*'))
      best = { ...e, star: sub.slice(head.length, sub.length - tail.length) };
  }
  if (best === null) return null;
  const target = exportsEntry(best.value, ts, custom);
  return target === null ? null : target.split('*').join(best.star);
}

/**
 * A bare specifier naming a package of the repository (a workspace package), or a path inside one. `custom`: the
 * importer's tsconfig customConditions, matched first (TypeScript importers).
 */
function workspacePackage(repo: RepoIndex, spec: string, ts: boolean, custom: readonly string[]): string | null {
  const parts = spec.split('/');
  const nameLen = spec.startsWith('@') ? 2 : 1;
  const dir = repo.packageDirs.get(parts.slice(0, nameLen).join('/'));
  if (dir === undefined) return null;
  const sub = parts.slice(nameLen).join('/');
  const pkg = repo.packages.get(dir);
  if (sub !== '') {
    const mapped = exportsSubpath(pkg?.subpaths ?? [], `./${sub}`, ts, custom);
    const p = join(dir, mapped ?? sub);
    return p === null ? null : lookup(repo, p, ts);
  }
  const entry = ts ? (custom.length > 0 ? exportsEntry(pkg?.exports, true, custom) : pkg?.exportsTs) : pkg?.exportsJs;
  if (entry) {
    const p = join(dir, entry);
    const hit = p === null ? null : lookup(repo, p, ts);
    if (hit !== null) return hit;
  }
  return lookup(repo, dir, ts);
}

/**
 * JavaScript and TypeScript: relative specifiers from the importing file's directory; bare specifiers through the
 * nearest tsconfig/jsconfig `paths` and `baseUrl`, then the repository's own packages by package.json `name`;
 * anything else is a package (external).
 */
export function resolveJsImport(ref: ImportRef, from: string, repo: RepoIndex): string[] {
  const spec = ref.spec.split('?')[0]!;
  const ts = isTs(from);
  if (spec.startsWith('./') || spec.startsWith('../') || spec === '.' || spec === '..') {
    const base = join(dirname(from), spec);
    return base === null ? [] : one(lookup(repo, base, ts));
  }
  if (spec.startsWith('/')) return one(lookup(repo, spec.slice(1), ts));
  const config = repo.tsconfigs.find((c) => c.dir === '' || from.startsWith(c.dir + '/'));
  if (config) {
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
        const hit = p === null ? null : lookup(repo, p, ts);
        if (hit !== null) return [hit];
      }
    }
    if (config.baseUrl !== null) {
      const p = join(config.baseUrl, spec);
      const hit = p === null ? null : lookup(repo, p, ts);
      if (hit !== null) return [hit];
    }
  }
  return one(workspacePackage(repo, spec, ts, ts ? (config?.customConditions ?? []) : []));
}
