import type { ImportRef, LanguagePlugin } from './plugin.ts';
import { hasModifierBeforeName } from './plugin.ts';
import type { RepoIndex } from '../resolve/repo-index.ts';
import { requireGrammar } from './load.ts';
import { dirsEndingWith } from '../resolve/repo-index.ts';
import { representative } from '../resolve/common.ts';

/** Swift: `import M` names a module; a SwiftPM target lives in Sources/M (or Tests/M). */
function resolve(ref: ImportRef, _from: string, repo: RepoIndex): string[] {
  const module = ref.spec.split('.')[0] ?? '';
  for (const dir of [...dirsEndingWith(repo, `Sources/${module}`), ...dirsEndingWith(repo, `Tests/${module}`)].sort()) {
    const rep = representative(repo, dir, (n) => n.endsWith('.swift'));
    if (rep !== null) return [rep];
  }
  return [];
}

export const swift: LanguagePlugin = {
  id: 'swift',
  extensions: ['.swift'],
  interpreters: ['swift'],
  queryFile: 'swift.scm',
  grammar: () => Promise.resolve(requireGrammar('tree-sitter-swift')),
  isExported: (def) => !hasModifierBeforeName(def, ['private', 'fileprivate']),
  resolve,
};
