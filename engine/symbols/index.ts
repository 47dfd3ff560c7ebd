/** The symbol graph's engine side (issue 28): the contract's types, the import targets, the resolver. */
import type { ImportRef } from '../languages/plugin.ts';
import { pluginById } from '../languages/registry.ts';
import type { RepoIndex } from '../resolve/repo-index.ts';
import type { FileAnalysis, Tree } from '../types.ts';
import type { ResolvedImport } from './types.ts';

export type * from './types.ts';
export { SYMBOL_FACTS_VERSION, parseSymbolRef, symbolRef } from './types.ts';
export { edgePartCuts, edgePartOf, edgesByPart, resolveSymbolGraph, type EdgeParts } from './resolve.ts';

/**
 * The file-level resolution of each import of a file, as the resolver's input wants it (one entry per import as
 * written, in order; `targets` [] for an import outside the repository; the file itself is never a target). For a
 * file reused from an earlier sync, pass its stored imports.
 */
export function resolveImportTargets(
  language: string,
  filePath: string,
  imports: readonly ImportRef[],
  tree: Tree,
): ResolvedImport[] {
  const plugin = pluginById(language);
  const repo = tree.repo as RepoIndex;
  return imports.map((ref) => ({
    spec: ref.spec,
    ...(ref.kind !== undefined ? { kind: ref.kind } : {}),
    targets: plugin ? plugin.resolve(ref, filePath, repo).filter((t) => t !== filePath) : [],
  }));
}

/** `resolveImportTargets` for a fresh analysis. */
export function importTargets(
  tree: Tree,
  analysis: Pick<FileAnalysis, 'language' | 'file_path' | 'imports'>,
): ResolvedImport[] {
  return resolveImportTargets(analysis.language, analysis.file_path, analysis.imports ?? [], tree);
}
