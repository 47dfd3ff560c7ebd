import type { LanguagePlugin } from './plugin.ts';
import { requireGrammar } from './load.ts';
import { resolveJsImport } from './js-resolve.ts';

/** TypeScript, with TSX files parsed by the tsx grammar of the same package (one language id). */
export const typescript: LanguagePlugin = {
  id: 'typescript',
  extensions: ['.ts', '.tsx', '.mts', '.cts'],
  interpreters: ['ts-node', 'tsx', 'deno'],
  queryFile: 'typescript.scm',
  dialect: (path) => (path.toLowerCase().endsWith('.tsx') ? 'tsx' : 'typescript'),
  grammar: (path) =>
    Promise.resolve(
      requireGrammar('tree-sitter-typescript', path.toLowerCase().endsWith('.tsx') ? 'tsx' : 'typescript'),
    ),
  resolve: resolveJsImport,
};
