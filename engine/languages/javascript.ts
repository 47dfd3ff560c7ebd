import type { LanguagePlugin } from './plugin.ts';
import { requireGrammar } from './load.ts';
import { resolveJsImport } from './js-resolve.ts';

export const javascript: LanguagePlugin = {
  id: 'javascript',
  extensions: ['.js', '.jsx', '.mjs', '.cjs'],
  interpreters: ['node', 'nodejs'],
  queryFile: 'javascript.scm',
  grammar: () => Promise.resolve(requireGrammar('tree-sitter-javascript')),
  resolve: resolveJsImport,
};
