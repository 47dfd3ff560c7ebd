import type { LanguagePlugin } from './plugin.ts';
import { requireGrammar } from './load.ts';
import { finishIncludes, readInclude, resolveInclude } from './c-family.ts';

export const c: LanguagePlugin = {
  id: 'c',
  extensions: ['.c', '.h'],
  queryFile: 'c.scm',
  grammar: () => Promise.resolve(requireGrammar('tree-sitter-c')),
  readImport: readInclude,
  finishImports: finishIncludes,
  isExported: (def) => !/^\s*static\b/.test(def.firstLine),
  resolve: resolveInclude,
};
