import type { ImportRef, LanguagePlugin } from './plugin.ts';
import { hasModifierBeforeName } from './plugin.ts';
import type { RepoIndex } from '../resolve/repo-index.ts';
import { dirsEndingWith, filesEndingWith } from '../resolve/repo-index.ts';
import { representative, shortest } from '../resolve/common.ts';

/**
 * C#: `using A.B.C;` names a namespace (or, for `using static`/aliases, a type). Namespaces follow folders by
 * convention, usually without the project's root namespace: the longest suffix of the namespace that names a
 * folder (at least two segments, or one when it is the whole name) resolves to that folder's representative file;
 * a type name resolves to its `.cs` file.
 */
/**
 * The binding's file itself: the package's `main` ("bindings/node") has no extension, which Node's ES module
 * resolver still completes but warns about (DEP0151) in every process that loads the grammar.
 */
const GRAMMAR: string = 'tree-sitter-c-sharp/bindings/node/index.js';

function resolve(ref: ImportRef, _from: string, repo: RepoIndex): string[] {
  const parts = ref.spec
    .replace(/^static\s+/, '')
    .replace(/^global::/, '')
    .split('.')
    .filter(Boolean);
  for (let i = 0; i < parts.length; i++) {
    const suffix = parts.slice(i).join('/');
    if (parts.length - i < 2 && i > 0) break;
    const file = filesEndingWith(repo, `${suffix}.cs`);
    if (file.length > 0) return [shortest(file)];
    for (const dir of dirsEndingWith(repo, suffix).sort()) {
      const rep = representative(repo, dir, (n) => n.endsWith('.cs'));
      if (rep !== null) return [rep];
    }
  }
  return [];
}

export const csharp: LanguagePlugin = {
  id: 'csharp',
  extensions: ['.cs', '.csx'],
  queryFile: 'csharp.scm',
  // The grammar's binding uses top-level await, so it must be loaded with import(), not require().
  grammar: async () => ((await import(GRAMMAR)) as { default: unknown }).default,
  isExported: (def) => !hasModifierBeforeName(def, ['private', 'internal']),
  resolve,
};
