import type { CaptureView, ImportRef, LanguagePlugin } from './plugin.ts';
import { hasModifierBeforeName } from './plugin.ts';
import { requireGrammar } from './load.ts';
import { resolveQualified } from '../resolve/common.ts';

/**
 * `import a.b.C;`, `import a.b.*;` (kind 'wildcard': a package), `import static a.b.C.m;` and `import static a.b.C.*;`
 * (all members of class C: the class's file, not a package).
 */
function readImport(captures: CaptureView[]): ImportRef[] {
  const source = captures.find((c) => c.name === 'import.source');
  if (!source) return [];
  const isStatic = /^import\s+static\b/.test(captures.find((c) => c.name === 'import')?.text ?? '');
  const wildcard = !isStatic && captures.some((c) => c.name === 'import.wildcard');
  return [{ spec: source.text.replace(/\s+/g, ''), line: source.row + 1, ...(wildcard ? { kind: 'wildcard' } : {}) }];
}

export const java: LanguagePlugin = {
  id: 'java',
  extensions: ['.java'],
  queryFile: 'java.scm',
  grammar: () => Promise.resolve(requireGrammar('tree-sitter-java')),
  readImport,
  isExported: (def) => !hasModifierBeforeName(def, ['private']),
  resolve: (ref, _from, repo) => resolveQualified(repo, ref.spec, ['.java'], ref.kind === 'wildcard'),
};
