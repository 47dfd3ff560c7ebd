import type { ImportRef, LanguagePlugin } from './plugin.ts';
import type { RepoIndex } from '../resolve/repo-index.ts';
import { requireGrammar } from './load.ts';
import { representative } from '../resolve/common.ts';
import { dirname } from '../resolve/paths.ts';

const goFile = (name: string): boolean => name.endsWith('.go') && !name.endsWith('_test.go');

function packageFile(repo: RepoIndex, dir: string): string | null {
  return repo.dirs.has(dir) ? representative(repo, dir, goFile) : null;
}

/**
 * Go: the import path names a package directory. A path under a go.mod's module path maps to that module's
 * directory; the standard library's module `std` maps paths directly; vendored packages are looked up in the
 * vendor directories of the enclosing modules. The edge goes to the package's representative file.
 */
function resolve(ref: ImportRef, from: string, repo: RepoIndex): string[] {
  const spec = ref.spec;
  for (const mod of repo.goModules) {
    let dir: string | null = null;
    if (spec === mod.module) dir = mod.dir;
    else if (spec.startsWith(mod.module + '/')) dir = joinDir(mod.dir, spec.slice(mod.module.length + 1));
    else if (mod.module === 'std' && !spec.split('/')[0]!.includes('.')) dir = joinDir(mod.dir, spec);
    // A folder with its own go.mod is another module: the import path of the outer module does not reach into it.
    if (dir !== null && !inNestedModule(repo, mod.dir, dir)) {
      const hit = packageFile(repo, dir);
      if (hit !== null) return [hit];
    }
  }
  // Vendored: the nearest enclosing module directory's vendor/ first.
  for (const mod of repo.goModules) {
    if (mod.dir !== '' && !from.startsWith(mod.dir + '/')) continue;
    const hit = packageFile(repo, joinDir(joinDir(mod.dir, 'vendor'), spec));
    if (hit !== null) return [hit];
  }
  if (repo.goModules.length === 0) {
    // No go.mod: GOPATH-style trees; try the path from the root and relative to the importing package.
    const hit = packageFile(repo, spec) ?? packageFile(repo, joinDir(dirname(from), spec));
    if (hit !== null) return [hit];
  }
  return [];
}

/** Whether `dir` lies in a module nested inside the module at `moduleDir` (a deeper go.mod on the way). */
function inNestedModule(repo: RepoIndex, moduleDir: string, dir: string): boolean {
  return repo.goModules.some(
    (m) =>
      m.dir !== moduleDir &&
      (moduleDir === '' || m.dir.startsWith(moduleDir + '/')) &&
      (dir === m.dir || dir.startsWith(m.dir + '/')),
  );
}

function joinDir(a: string, b: string): string {
  return a === '' ? b : `${a}/${b}`;
}

export const go: LanguagePlugin = {
  id: 'go',
  extensions: ['.go'],
  queryFile: 'go.scm',
  grammar: () => Promise.resolve(requireGrammar('tree-sitter-go')),
  isExported: (def) => /^\p{Lu}/u.test(def.name),
  // tree-sitter-go: function and method declarations exist only at the top level, import specs only inside an import
  // declaration; a type declaration is a statement, so any block (a function body, a function literal in a var or
  // const initialiser) may hold one, and it starts with the keyword `type`. Checked over the whole Go standard
  // library: the same analyses as walking every node (docs/engine.md). Top-level type declarations are walked (not
  // pruned): an interface's method elements are definitions too (issue 28).
  queryPrune: {
    types: ['function_declaration', 'method_declaration', 'var_declaration', 'const_declaration'],
    word: 'type',
  },
  resolve,
};
