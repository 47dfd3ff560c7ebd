import type { CaptureView, ImportRef, LanguagePlugin } from './plugin.ts';
import { hasModifierBeforeName } from './plugin.ts';
import { requireGrammar } from './load.ts';
import { resolveQualified } from '../resolve/common.ts';

function readImport(captures: CaptureView[]): ImportRef[] {
  const source = captures.find((c) => c.name === 'import.source');
  if (!source) return [];
  const full = captures.find((c) => c.name === 'import');
  const wildcard = full !== undefined && /\.\s*\*\s*$/.test(full.text.replace(/\s+as\s+\w+\s*$/, ''));
  return [{ spec: source.text.replace(/\s+/g, ''), line: source.row + 1, ...(wildcard ? { kind: 'wildcard' } : {}) }];
}

export const kotlin: LanguagePlugin = {
  id: 'kotlin',
  extensions: ['.kt', '.kts'],
  queryFile: 'kotlin.scm',
  grammar: () => Promise.resolve(requireGrammar('@tree-sitter-grammars/tree-sitter-kotlin')),
  readImport,
  isExported: (def) => !hasModifierBeforeName(def, ['private', 'internal']),
  resolve: (ref, _from, repo) => resolveQualified(repo, ref.spec, ['.kt', '.kts'], ref.kind === 'wildcard', true),
};
