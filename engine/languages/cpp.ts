import type { LanguagePlugin } from './plugin.ts';
import { requireGrammar } from './load.ts';
import { finishIncludes, readInclude, resolveInclude } from './c-family.ts';

export const cpp: LanguagePlugin = {
  id: 'cpp',
  extensions: ['.cpp', '.cc', '.cxx', '.c++', '.hpp', '.hh', '.hxx', '.h++', '.ipp', '.tpp', '.inl'],
  queryFile: 'cpp.scm',
  grammar: () => Promise.resolve(requireGrammar('tree-sitter-cpp')),
  readImport: readInclude,
  finishImports: finishIncludes,
  isExported: (def) => !/^\s*static\b/.test(def.firstLine),
  resolve: resolveInclude,
};
