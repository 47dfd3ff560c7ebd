/**
 * Symbol detail and symbol impact over a sync's symbol graph (snapshot.ts): who calls a symbol, what it calls, its
 * supertypes, subtypes and overrides, each with how it was resolved and how sure it is; and whether an answer is
 * `exact` or a `lower_bound`, with the reasons (unresolved calls that could reach it, dynamic dispatch, dynamic
 * receivers, reflection).
 */
import type {
  Completeness,
  ImpactDirection,
  RelatedSymbol,
  SymbolImpactHit as SymbolImpactHitJson,
  SymbolRef,
  SymbolRelations,
} from '../../lib/api/routes/symbols.ts';
import { encodeNodeId } from '../../lib/node-id.ts';
import { symbolAddress } from './address.ts';
import type { SymbolEdgeInfo, SymbolGraph, SymbolLabel } from './snapshot.ts';

/** A symbol as listed in answers. */
export function symbolJson(g: SymbolGraph, i: number): SymbolRef {
  const path = g.filePaths[g.file[i]!]!;
  return {
    id: symbolAddress(g.sourceId, path, g.keys[i]!),
    key: g.keys[i]!,
    name: g.names[i]!,
    kind: g.symbolKinds[i]!,
    file_path: path,
    node_id: encodeNodeId(g.sourceId, path),
    line: g.lines[i]!,
    end_line: g.endLines[i]!,
  };
}

function edgeJson(g: SymbolGraph, e: SymbolEdgeInfo): RelatedSymbol {
  return {
    ...symbolJson(g, e.other),
    rel_type: e.label,
    provenance: e.provenance,
    confidence: e.confidence,
    lines: e.lines,
    count: e.count,
  };
}

const REASON_OF_UNRESOLVED: Record<string, { reason: string; detail: string }> = {
  unknown_name: { reason: 'unresolved_calls', detail: 'calls to names not found in the repository' },
  ambiguous: { reason: 'ambiguous_calls', detail: 'calls with several candidate definitions, not guessed' },
  dynamic_receiver: { reason: 'dynamic_receiver', detail: 'calls on receivers whose type is not evident' },
  dynamic: { reason: 'reflection', detail: 'dynamic calls (reflection, getattr, eval, computed members)' },
};

/** A sync made with `symbol_graph: false` has no symbol edges at all: any list may miss everything. */
function graphOff(g: SymbolGraph): Completeness['reasons'] {
  return g.withoutGraph
    ? [{ reason: 'no_symbol_graph', count: 1, detail: 'the sync was made with symbol_graph: false' }]
    : [];
}

function complete(reasons: Completeness['reasons']): Completeness {
  const kept = reasons.filter((r) => r.count > 0);
  return { status: kept.length > 0 ? 'lower_bound' : 'exact', reasons: kept };
}

const edgesOf = (list: readonly SymbolEdgeInfo[], ...labels: SymbolLabel[]) =>
  list.filter((e) => labels.includes(e.label));

/** Why the callers of the symbols in `set` may be more than the graph shows. */
function callerReasons(g: SymbolGraph, set: Iterable<number>): Completeness['reasons'] {
  const names = new Set<string>();
  let dispatch = 0;
  for (const i of set) {
    names.add(g.names[i]!);
    // Calls written against a method it overrides (a base type, an interface) may reach it at run time.
    dispatch += edgesOf(g.out[i]!, 'overrides').length;
  }
  let unresolved = 0;
  for (const n of names) unresolved += g.unresolvedByName.get(n) ?? 0;
  return [
    ...graphOff(g),
    { reason: 'unresolved_calls', count: unresolved, detail: 'unresolved uses elsewhere with the same name' },
    { reason: 'dynamic_dispatch', count: dispatch, detail: 'calls to an overridden method may dispatch here' },
  ];
}

/** Why the callees of the symbols in `set` may be more than the graph shows. */
function calleeReasons(g: SymbolGraph, set: Iterable<number>): Completeness['reasons'] {
  const by = new Map<string, { reason: string; count: number; detail: string }>();
  let dispatch = 0;
  for (const i of set) {
    for (const [reason, n] of Object.entries(g.unresolvedBySymbol.get(i) ?? {})) {
      const r = REASON_OF_UNRESOLVED[reason] ?? { reason, detail: reason };
      const cur = by.get(r.reason) ?? { ...r, count: 0 };
      cur.count += n;
      by.set(r.reason, cur);
    }
    // A call to a method others override may run one of the overriders.
    for (const e of edgesOf(g.out[i]!, 'calls')) if (edgesOf(g.in[e.other]!, 'overrides').length > 0) dispatch++;
  }
  return [
    ...graphOff(g),
    ...[...by.values()].sort((a, b) => (a.reason < b.reason ? -1 : 1)),
    { reason: 'dynamic_dispatch', count: dispatch, detail: 'calls to methods that others override' },
  ];
}

function cut<T>(xs: T[], limit: number): T[] {
  return xs.length > limit ? xs.slice(0, limit) : xs;
}

const byPlace = (g: SymbolGraph) => (a: SymbolEdgeInfo, b: SymbolEdgeInfo) =>
  cmp(g.filePaths[g.file[a.other]!]!, g.filePaths[g.file[b.other]!]!) ||
  g.lines[a.other]! - g.lines[b.other]! ||
  cmp(g.keys[a.other]!, g.keys[b.other]!);

/** The relations of one symbol, each list sorted by file and line and cut at `limit` (counts are complete). */
export function symbolRelations(g: SymbolGraph, i: number, limit: number): SymbolRelations {
  const order = byPlace(g);
  const lists = {
    callers: edgesOf(g.in[i]!, 'calls'),
    callees: edgesOf(g.out[i]!, 'calls'),
    supertypes: edgesOf(g.out[i]!, 'inherits', 'implements'),
    subtypes: edgesOf(g.in[i]!, 'inherits', 'implements'),
    overrides: edgesOf(g.out[i]!, 'overrides'),
    overridden_by: edgesOf(g.in[i]!, 'overrides'),
    references: edgesOf(g.out[i]!, 'references'),
    referenced_by: edgesOf(g.in[i]!, 'references'),
  };
  const counts = Object.fromEntries(Object.entries(lists).map(([k, v]) => [k, v.length]));
  const out = Object.fromEntries(
    Object.entries(lists).map(([k, v]) => [k, cut([...v].sort(order), limit).map((e) => edgeJson(g, e))]),
  ) as Record<keyof typeof lists, RelatedSymbol[]>;
  return {
    ...out,
    counts,
    truncated: Object.values(lists).some((v) => v.length > limit),
    completeness: { callers: complete(callerReasons(g, [i])), callees: complete(calleeReasons(g, [i])) },
  };
}

export interface SymbolImpactHit {
  index: number;
  distance: number;
  /** The symbol one step closer to the start; -1 at distance 1. */
  via: number;
  edge: SymbolEdgeInfo;
}

/**
 * Transitive callers (against the calls edges) or callees (along them) of a symbol, breadth first up to `depth`.
 * Each symbol reached is listed once, at its shortest distance, with the edge that reached it. The answer is a lower
 * bound when any symbol whose callers (callees) were followed may have more than the graph shows.
 */
export function symbolImpact(g: SymbolGraph, start: number, direction: ImpactDirection, depth: number) {
  const seen = new Set<number>([start]);
  const expanded: number[] = [];
  const hits: SymbolImpactHit[] = [];
  const byDistance: number[] = [];
  let frontier = [start];
  for (let d = 1; d <= depth && frontier.length > 0; d++) {
    const next: number[] = [];
    for (const v of frontier) {
      expanded.push(v);
      const list = direction === 'callers' ? g.in[v]! : g.out[v]!;
      for (const e of list) {
        if (e.label !== 'calls' || seen.has(e.other)) continue;
        seen.add(e.other);
        next.push(e.other);
        hits.push({ index: e.other, distance: d, via: d === 1 ? -1 : v, edge: e });
      }
    }
    if (next.length > 0) byDistance.push(next.length);
    frontier = next;
  }
  hits.sort(
    (a, b) =>
      a.distance - b.distance ||
      cmp(g.filePaths[g.file[a.index]!]!, g.filePaths[g.file[b.index]!]!) ||
      g.lines[a.index]! - g.lines[b.index]!,
  );
  const reasons = direction === 'callers' ? callerReasons(g, expanded) : calleeReasons(g, expanded);
  return { hits, byDistance, completeness: complete(reasons) };
}

export function impactHitJson(g: SymbolGraph, h: SymbolImpactHit, startId: string): SymbolImpactHitJson {
  const f = g.file[h.index]!;
  return {
    ...symbolJson(g, h.index),
    file_type: g.fileTypes[f]!,
    distance: h.distance,
    via: h.via < 0 ? startId : symbolAddress(g.sourceId, g.filePaths[g.file[h.via]!]!, g.keys[h.via]!),
    provenance: h.edge.provenance,
    confidence: h.edge.confidence,
    lines: h.edge.lines,
  };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
