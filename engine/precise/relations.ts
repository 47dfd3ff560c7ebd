/**
 * SCIP relationships into the symbol graph's hierarchy edges (issue 29): a symbol's SymbolInformation lists the
 * symbols it implements (`is_implementation`): a class its superclasses and interfaces, a method the methods it
 * overrides or implements (scip-typescript, scip-java; scip-go: types and methods implementing interfaces). Pure.
 *
 * The indexers list every ancestor (scip-typescript walks the whole heritage chain), while the heuristic tier writes
 * direct supertypes and the nearest overridden method; so the relation is reduced to its direct part: a target is
 * dropped when another target of the same symbol reaches it. Only targets the index defines (inside the repository)
 * count. The label comes from the engine's kinds of both ends, as the heuristic tier decides it:
 *   - a method implementing a method: `overrides`;
 *   - a type implementing an interface, protocol or trait (itself none of them): `implements`;
 *   - a type implementing another type (a class its superclass, an interface the interface it extends): `inherits`.
 */
import type { SymbolEdge, SymbolRef } from '../symbols/types.ts';
import type { ScipIndex } from './scip.ts';

const TYPE_KINDS = new Set(['class', 'interface', 'struct', 'trait', 'enum', 'type', 'record', 'object', 'protocol']);
const IMPLEMENTABLE = new Set(['interface', 'protocol', 'trait']);

/** Every `is_implementation` relationship of the index's own symbols: symbol → the symbols it implements. */
export function scipImplementations(index: ScipIndex): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const doc of index.documents) {
    for (const info of doc.symbols) {
      if (info.symbol.startsWith('local ')) continue;
      for (const r of info.relationships) {
        if (!r.is_implementation || r.symbol === info.symbol || r.symbol.startsWith('local ')) continue;
        let set = out.get(info.symbol);
        if (!set) out.set(info.symbol, (set = new Set()));
        set.add(r.symbol);
      }
    }
  }
  return out;
}

/** The direct part of the relation: a target another target of the same symbol reaches is left out. */
export function directImplementations(rel: ReadonlyMap<string, ReadonlySet<string>>): Map<string, string[]> {
  const reach = new Map<string, Set<string>>();
  const reachOf = (s: string, path: Set<string>): Set<string> => {
    const known = reach.get(s);
    if (known) return known;
    const out = new Set<string>();
    path.add(s);
    for (const t of rel.get(s) ?? []) {
      out.add(t);
      if (!path.has(t)) for (const x of reachOf(t, path)) out.add(x);
    }
    path.delete(s);
    reach.set(s, out);
    return out;
  };
  const out = new Map<string, string[]>();
  for (const [from, tos] of rel) {
    const kept = [...tos].filter((t) => ![...tos].some((u) => u !== t && reachOf(u, new Set([from])).has(t)));
    if (kept.length > 0) out.set(from, kept.sort());
  }
  return out;
}

/** The hierarchy label of `from` implementing `to`, by the engine's kinds; null when neither rule applies. */
export function hierarchyLabel(fromKind: string, toKind: string): 'inherits' | 'implements' | 'overrides' | null {
  if (fromKind === 'method' && toKind === 'method') return 'overrides';
  if (!TYPE_KINDS.has(fromKind) || !TYPE_KINDS.has(toKind)) return null;
  return IMPLEMENTABLE.has(toKind) && !IMPLEMENTABLE.has(fromKind) ? 'implements' : 'inherits';
}

/**
 * The hierarchy edges (provenance scip, confidence 1; no lines, count 1, as the heuristic tier writes them) between
 * the engine's symbols: `engineOf` maps an index symbol to its engine ref and kind (null: no engine definition).
 * Sorted by (label, from, to).
 */
export function hierarchyEdges(
  index: ScipIndex,
  engineOf: (symbol: string) => { ref: SymbolRef; kind: string } | null,
): SymbolEdge[] {
  const out = new Map<string, SymbolEdge>();
  for (const [from, tos] of directImplementations(scipImplementations(index))) {
    const a = engineOf(from);
    if (!a) continue;
    for (const to of tos) {
      const b = engineOf(to);
      if (!b || b.ref === a.ref) continue;
      const label = hierarchyLabel(a.kind, b.kind);
      if (!label) continue;
      const k = `${label}\u0000${a.ref}\u0000${b.ref}`;
      if (!out.has(k))
        out.set(k, { label, from: a.ref, to: b.ref, provenance: 'scip', confidence: 1, lines: [], count: 1 });
    }
  }
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return [...out.values()].sort((x, y) => cmp(x.label, y.label) || cmp(x.from, y.from) || cmp(x.to, y.to));
}
