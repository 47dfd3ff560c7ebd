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
 * prefix naming a file, matched as a path suffix so any source root works); a wildcard or package import resolves
 * to a representative file of the package directory.
 */
export function resolveQualified(
  repo: RepoIndex,
  qualified: string,
  exts: readonly string[],
  wildcard: boolean,
): string[] {
  const parts = qualified.split('.').filter((p) => p.length > 0);
  // A name may end in up to two member segments (static imports, nested classes): try shorter prefixes too.
  const lowest = Math.max(1, parts.length - 2);
  for (let n = parts.length; n >= lowest; n--) {
    const stemPath = parts.slice(0, n).join('/');
    if (!wildcard || n < parts.length) {
      for (const ext of exts) {
        const hits = filesEndingWith(repo, stemPath + ext);
        if (hits.length > 0) return [shortest(hits)];
      }
    }
    if (n >= 2) {
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
