import type { CaptureView, ImportRef, LanguagePlugin } from './plugin.ts';
import { hasModifierBeforeName } from './plugin.ts';
import { requireGrammar } from './load.ts';
import { resolveQualified } from '../resolve/common.ts';

function readImport(captures: CaptureView[]): ImportRef[] {
  const source = captures.find((c) => c.name === 'import.source');
  if (!source) return [];
  const wildcard = captures.some((c) => c.name === 'import.wildcard');
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
