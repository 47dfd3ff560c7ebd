/**
 * The precise tier's result for one index: the symbol graph's edges with provenance `scip` and confidence 1, between
 * the engine's symbols (SymbolRefs), and the uses of symbols outside the repository with their package monikers.
 * Pure: the index, the engine's definitions per file (symbol facts) and the files' lines in; the result out.
 */
import type { SymbolEdge, SymbolRef } from '../symbols/types.ts';
import { symbolRef } from '../symbols/types.ts';
import { matchDefinition, scipDefinitions, scipUses, type EngineDefinition, type ScipMoniker } from './edges.ts';
import { hierarchyEdges } from './relations.ts';
import type { ScipIndex } from './scip.ts';

export interface PreciseExternalUse {
  from: SymbolRef;
  /** The SCIP symbol as written (scheme, manager, package, version, descriptors). */
  symbol: string;
  moniker: ScipMoniker;
  lines: number[];
  count: number;
}

export interface PreciseResult {
  tool: { name: string; version: string };
  /** Repository files the index has a document for (the heuristic edges from these are replaced). */
  covered: string[];
  /**
   * calls and references, and the hierarchy edges of the index's relationships (inherits, implements, overrides:
   * engine/precise/relations.ts; absent from results stored before they were read), sorted by (label, from, to).
   */
  edges: SymbolEdge[];
  external: PreciseExternalUse[];
  /** The indexer's callables, and how many matched an engine definition. */
  callables: number;
  matched: number;
  /** Uses between callables left out because an end matched no engine definition. */
  unmatched: number;
}

/** The indexer's view in engine terms (engine/precise/edges.ts has the rules, docs/precise.md the why). */
export function derivePrecise(
  index: ScipIndex,
  defsByFile: ReadonlyMap<string, readonly EngineDefinition[]>,
  linesOf: (path: string) => string[] | null,
): PreciseResult {
  const defs = scipDefinitions(index);
  const refOf = new Map<string, SymbolRef>();
  let callables = 0;
  for (const d of defs.values()) {
    if (!d.callable) continue;
    callables++;
    const key = matchDefinition(d, defsByFile.get(d.path));
    if (key) refOf.set(d.symbol, symbolRef(d.path, key));
  }
  const uses = scipUses(index, defs, {
    bodyOf: (path, def) => {
      const list = defsByFile.get(path);
      const key = matchDefinition(def, list);
      const d = key ? list!.find((x) => x.key === key) : undefined;
      return d ? [def.line, d.end_line] : null;
    },
    linesOf,
  });
  const merged = new Map<string, SymbolEdge>();
  let unmatched = 0;
  for (const u of uses.edges) {
    const from = refOf.get(u.from);
    const to = refOf.get(u.to);
    if (!from || !to) {
      unmatched++;
      continue;
    }
    const label = u.kind === 'call' ? 'calls' : 'references';
    const k = `${label}\u0000${from}\u0000${to}`;
    const e = merged.get(k);
    if (e) {
      e.lines = [...new Set([...e.lines, ...u.lines])].sort((a, b) => a - b);
      e.count += u.count;
    } else merged.set(k, { label, from, to, provenance: 'scip', confidence: 1, lines: [...u.lines], count: u.count });
  }
  const external = new Map<string, PreciseExternalUse>();
  for (const x of uses.external) {
    const from = refOf.get(x.from);
    if (!from) continue;
    const k = `${from}\u0000${x.symbol}`;
    const e = external.get(k);
    if (e) {
      e.lines = [...new Set([...e.lines, ...x.lines])].sort((a, b) => a - b);
      e.count += x.count;
    } else external.set(k, { from, symbol: x.symbol, moniker: x.moniker, lines: [...x.lines], count: x.count });
  }
  // The relationships (a class implementing an interface, a method overriding one) between the engine's symbols.
  const engineOf = (symbol: string) => {
    const d = defs.get(symbol);
    const list = d ? defsByFile.get(d.path) : undefined;
    const key = d ? matchDefinition(d, list) : null;
    const def = key ? list!.find((x) => x.key === key) : undefined;
    return def && d ? { ref: symbolRef(d.path, def.key), kind: def.kind } : null;
  };
  for (const e of hierarchyEdges(index, engineOf)) merged.set(`${e.label}\u0000${e.from}\u0000${e.to}`, e);
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return {
    tool: index.tool,
    covered: [...new Set(index.documents.map((d) => d.relative_path))].sort(),
    edges: [...merged.values()].sort((a, b) => cmp(a.label, b.label) || cmp(a.from, b.from) || cmp(a.to, b.to)),
    external: [...external.values()].sort((a, b) => cmp(a.from, b.from) || cmp(a.symbol, b.symbol)),
    callables,
    matched: refOf.size,
    unmatched,
  };
}
