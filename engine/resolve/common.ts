import type { RepoIndex } from './repo-index.ts';
import { dirsEndingWith, filesEndingWith } from './repo-index.ts';
import { basename } from './paths.ts';

/** The first candidate that is a file of the repository, as a one-element list (or none). */
export function firstExisting(repo: RepoIndex, candidates: Array<string | null>): string[] {
  for (const c of candidates) if (c !== null && repo.files.has(c)) return [c];
  return [];
}

/**
 * One file standing for a package directory (Go packages, Java/Kotlin wildcard imports, C# namespaces, Swift
 * modules): the file named after the directory, else a doc file, else the first file in name order. Only files
 * accepted by `accept` count.
 */
export function representative(repo: RepoIndex, dir: string, accept: (name: string) => boolean): string | null {
  const names = (repo.dirs.get(dir) ?? []).filter(accept);
  if (names.length === 0) return null;
  const base = basename(dir);
  const pick =
    names.find((n) => n.slice(0, n.lastIndexOf('.')) === base) ?? names.find((n) => n.startsWith('doc.')) ?? names[0]!;
  return dir === '' ? pick : `${dir}/${pick}`;
}

/**
 * JVM-style qualified names (Java, Kotlin, Scala): `a.b.C.d` resolves to the file `a/b/C.<ext>` (the longest
 * prefix naming a file, matched as a path suffix so any source root works; a prefix shorter than the name must end
 * in a capitalised segment, a class holding the member or nested class). A wildcard import resolves to a
 * representative file of its package directory. With `members` (Kotlin, Scala: a file may hold any classes and
 * top-level functions of its package), a plain import not found as a file resolves to a representative file of its
 * own package directory. Nothing falls back to a further ancestor package: an import of a class the repository does
 * not have resolves to nothing.
 */
export function resolveQualified(
  repo: RepoIndex,
  qualified: string,
  exts: readonly string[],
  wildcard: boolean,
  members = false,
): string[] {
  const parts = qualified.split('.').filter((p) => p.length > 0);
  // A name may end in up to two member segments (static imports, nested classes): try shorter prefixes too.
  const lowest = Math.max(1, parts.length - 2);
  for (let n = parts.length; n >= lowest; n--) {
    const stemPath = parts.slice(0, n).join('/');
    const classLike = n === parts.length ? !wildcard : /^\p{Lu}/u.test(parts[n - 1]!);
    if (classLike) {
      for (const ext of exts) {
        const hits = filesEndingWith(repo, stemPath + ext);
        if (hits.length > 0) return [shortest(hits)];
      }
    }
    const packageDir = n >= 2 && ((wildcard && n === parts.length) || (members && !wildcard && n === parts.length - 1));
    if (packageDir) {
      const dirs = dirsEndingWith(repo, stemPath);
      for (const dir of dirs.sort()) {
        const rep = representative(repo, dir, (name) => exts.some((e) => name.endsWith(e)));
        if (rep !== null) return [rep];
      }
    }
  }
  return [];
}

export function shortest(paths: string[]): string {
  return paths.reduce((a, b) => (b.length < a.length || (b.length === a.length && b < a) ? b : a));
}
