/** The parse-and-chunk engine's public surface (see docs/engine.md). */
export type * from './types.ts';
export { createEngine } from './engine.ts';
export type { EngineOptions } from './engine.ts';
export { analyzeFile, DEFAULT_MAX_FILE_BYTES } from './analyze-file.ts';
export type { FileRequest, FileResult } from './analyze-file.ts';
export { discover } from './discover.ts';
export type { DiscoveredFile } from './discover.ts';
export { classify } from './classify.ts';
export {
  chunkEmbeddingInput,
  chunkKeyInput,
  fileEmbeddingInput,
  EMBEDDING_MAX_CHARS,
  EMBEDDING_PREFIX,
} from './embedding.ts';
export { reconstruct } from './chunk/reconstruct.ts';
export { breadcrumb } from './chunk/breadcrumb.ts';
export { estimateTokens, CHUNK_BUDGET_TOKENS, CHUNK_OVERLAP_TOKENS } from './chunk/tokens.ts';
export { buildRepoIndex } from './resolve/repo-index.ts';
export type { RepoIndex } from './resolve/repo-index.ts';
export { resolveImports } from './resolve-imports.ts';
export { PLUGINS, pluginById } from './languages/registry.ts';
export type { ImportRef, LanguagePlugin } from './languages/plugin.ts';
export type * from './symbols/types.ts';
export {
  SYMBOL_FACTS_VERSION,
  importTargets,
  parseSymbolRef,
  resolveImportTargets,
  resolveSymbolGraph,
  symbolRef,
} from './symbols/index.ts';
