import type { ResolveInput, ResolveOutput } from './types.ts';

/**
 * The repo-wide symbol resolver: per-file facts and file-level import targets in, Symbol -> Symbol edges, unresolved
 * uses and stats out. Pure and deterministic (sorted output). See engine/symbols/types.ts and docs/engine.md.
 */
export function resolveSymbolGraph(input: ResolveInput): ResolveOutput {
  void input;
  return { edges: [], unresolved: [], stats: { by_language: {}, edges: 0, unresolved: 0, external: 0 } };
}
