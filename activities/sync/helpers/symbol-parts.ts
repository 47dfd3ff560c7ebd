/**
 * How a sync's symbol edges are cut into parts (issue 28): a part is the edges whose calling symbol's file lies in a
 * range of paths (the resolver's EdgeParts), so the resolver hands each part over as soon as it has passed its files
 * (early-symbols.ts) and resolve-symbols.ts writes it while the rest resolves. Shared by both: neither imports the
 * other.
 */
import { edgePartCuts, edgesByPart, type ResolveOutput, type SymbolEdge } from '../../../engine/symbols/index.ts';

/** The files of a part, about. */
const EDGE_PART_FILES = 1000;
/** The parts of a sync, at most. */
const MAX_EDGE_PARTS = 8;

/** The cuts of a sync's edge parts for the files resolved (their paths, any order). */
export function symbolEdgeCuts(paths: readonly string[]): string[] {
  return edgePartCuts(paths, Math.min(MAX_EDGE_PARTS, Math.max(1, Math.ceil(paths.length / EDGE_PART_FILES))));
}

/**
 * The resolver's edges in parts (EdgeParts), as writeResolvedGraph takes them: part k of `cuts.length + 1` when it is
 * there, and the output once every part is.
 */
export interface ResolvedParts {
  cuts: readonly string[];
  part(k: number): Promise<readonly SymbolEdge[]>;
  output: Promise<ResolveOutput>;
}

/** A resolver's whole output as parts cut at `cuts`. */
export function resolvedInParts(resolved: ResolveOutput, cuts: readonly string[]): ResolvedParts {
  const parts = edgesByPart(resolved.edges, cuts);
  return { cuts, part: (k) => Promise.resolve(parts[k]!), output: Promise.resolve(resolved) };
}
