/**
 * How the truth harness maps an index, the engine's symbol graph and GitNexus's CALLS onto one set of comparable
 * edges (bench/truth-symbols/truth.ts; the rules are also in docs/benchmarks.md, "Symbol graph truth").
 *
 * 1. Definitions. The indexer's are its global definitions (engine/precise/edges.ts scipDefinitions: first definition
 *    occurrence of each symbol; `local N` never). One is *callable* when its last descriptor is a method (`f().`), or,
 *    for scip-typescript, a term with a body (`const f = () => ...`). Each is matched to the engine's definition with
 *    the same file and name whose [line, end_line] holds the indexer's name line, the innermost one (matchDefinition;
 *    `<init>` is the class's name, `<constructor>` is `constructor`).
 * 2. The scored set S: engine functions, methods and constructors matched by an indexer callable. Everything else
 *    (classes, variables, fields that hold functions, callables only one side knows) is outside S.
 * 3. The caller of a truth site is the innermost definition whose extent holds the site: the indexer's enclosing range
 *    where it writes them (scip-typescript, scip-python, scip-go; pyright's and TypeScript's extents include
 *    decorators), matched to the engine's definition as in 1; where the index has none (scip-java), the innermost
 *    engine definition whose [line, end_line] holds the site's line. That definition is then lifted through the
 *    engine's definition nesting to the nearest member of S; a site with no such member (module level, a class body
 *    outside any method) has no caller and gives no edge. An engine or GitNexus edge's source is lifted the same way,
 *    so a nested function one side defines and the other keeps local counts for its enclosing member of S on both,
 *    and the comparison measures what each use resolves to.
 * 4. Truth: every occurrence of a callable's symbol in the index that is neither its definition nor an import, whose
 *    target is in S and whose caller exists: one edge (caller, target), calls and references alike (a function passed
 *    as a value is an edge too).
 * 5. Engine: its `calls` and `references` edges, `from` lifted as in 3, `to` in S. GitNexus: its CALLS, each end
 *    matched like an indexer definition (its startLine is 0-based), the source lifted as in 3, the target in S.
 * 6. Only callers in files the indexer indexed are scored, on every side (a file outside the indexer's project, such
 *    as a test folder a tsconfig leaves out or Java tests not compiled, has no truth; its edges are counted apart).
 * Compared: the sets of (caller, target) pairs. Edges dropped by 2-6 are counted, never scored.
 */
import { matchDefinition, scipDefinitions, type ScipDefinition } from '../../engine/precise/edges.ts';
import { ROLE_DEFINITION, ROLE_IMPORT, type ScipIndex } from '../../engine/precise/scip.ts';
import { parseSymbolRef, symbolRef, type ResolveOutput } from '../../engine/symbols/index.ts';

export interface EngineDef {
  key: string;
  name: string;
  kind: string;
  line: number;
  end_line: number;
  container: string | null;
}

/** A comparable edge set: `caller -> target` pairs of engine refs, with the 1-based site lines. */
export type EdgeSet = Map<string, { lines: Set<number>; provenance?: string }>;

export interface Scope {
  /** Engine definitions per file. */
  defsByFile: Map<string, EngineDef[]>;
  /** S: scored engine refs. */
  scored: Set<string>;
  /** Indexer symbol -> engine ref (all matched definitions). */
  mapped: Map<string, string>;
  /** Files the indexer indexed. */
  indexed: Set<string>;
  indexerDefs: Map<string, ScipDefinition>;
  indexerCallables: number;
  byRef: Map<string, EngineDef & { file: string }>;
}

const CALLABLE = new Set(['function', 'method', 'constructor']);

export function buildScope(index: ScipIndex, defsByFile: Map<string, EngineDef[]>): Scope {
  const indexerDefs = scipDefinitions(index);
  const byRef = new Map<string, EngineDef & { file: string }>();
  for (const [file, defs] of defsByFile) for (const d of defs) byRef.set(symbolRef(file, d.key), { ...d, file });
  const mapped = new Map<string, string>();
  const scored = new Set<string>();
  let indexerCallables = 0;
  for (const d of indexerDefs.values()) {
    const key = matchDefinition(d, defsByFile.get(d.path));
    if (d.callable) indexerCallables++;
    if (!key) continue;
    const ref = symbolRef(d.path, key);
    mapped.set(d.symbol, ref);
    if (d.callable && CALLABLE.has(byRef.get(ref)!.kind)) scored.add(ref);
  }
  const indexed = new Set(index.documents.map((d) => d.relative_path));
  return { defsByFile, scored, mapped, indexed, indexerDefs, indexerCallables, byRef };
}

/** The nearest member of S at or above `ref` in its file's definition nesting, or null. */
export function lift(scope: Scope, ref: string): string | null {
  let cur: string | null = ref;
  while (cur !== null) {
    if (scope.scored.has(cur)) return cur;
    const d = scope.byRef.get(cur);
    if (!d || d.container === null) return null;
    cur = symbolRef(d.file, d.container);
  }
  return null;
}

/** The caller of a site (rule 3): innermost engine definition holding the line, lifted; null when none. */
export function callerAt(scope: Scope, file: string, line: number): string | null {
  const defs = scope.defsByFile.get(file);
  if (!defs) return null;
  let best: EngineDef | null = null;
  for (const d of defs) {
    if (line < d.line || line > d.end_line) continue;
    if (!best || d.line > best.line || (d.line === best.line && d.end_line < best.end_line)) best = d;
  }
  return best ? lift(scope, symbolRef(file, best.key)) : null;
}

function add(set: EdgeSet, from: string, to: string, lines: Iterable<number>, provenance?: string): void {
  const k = `${from} -> ${to}`;
  let e = set.get(k);
  if (!e) set.set(k, (e = { lines: new Set(), ...(provenance ? { provenance } : {}) }));
  for (const l of lines) e.lines.add(l);
}

export interface Dropped {
  /** Target not in S (unmatched, or not a function/method on one side). */
  target: number;
  /** No caller in S (module level, class bodies). */
  caller: number;
  /** Caller in a file the indexer did not index. */
  unindexed: number;
}

interface Body {
  range: [number, number, number, number];
  ref: string;
}

/** The matched definitions of a document that have an enclosing range in the index, outer before inner. */
function bodiesOf(scope: Scope, doc: ScipIndex['documents'][number]): Body[] {
  const out: Body[] = [];
  for (const o of doc.occurrences) {
    if ((o.symbol_roles & ROLE_DEFINITION) === 0 || o.enclosing_range.length < 3) continue;
    const ref = scope.mapped.get(o.symbol);
    if (!ref || !ref.startsWith(`${doc.relative_path}#`)) continue;
    const r = o.enclosing_range;
    out.push({ range: r.length === 3 ? [r[0]!, r[1]!, r[0]!, r[2]!] : [r[0]!, r[1]!, r[2]!, r[3]!], ref });
  }
  return out.sort(
    (a, b) => a.range[0] - b.range[0] || a.range[1] - b.range[1] || b.range[2] - a.range[2] || b.range[3] - a.range[3],
  );
}

const within = (b: Body, line: number, ch: number): boolean =>
  (b.range[0] < line || (b.range[0] === line && b.range[1] <= ch)) &&
  (line < b.range[2] || (line === b.range[2] && ch < b.range[3]));

/** Rule 4: the index's edges. */
export function truthEdges(scope: Scope, index: ScipIndex): { edges: EdgeSet; dropped: Dropped } {
  const edges: EdgeSet = new Map();
  const dropped: Dropped = { target: 0, caller: 0, unindexed: 0 };
  for (const doc of index.documents) {
    const bodies = bodiesOf(scope, doc);
    for (const o of doc.occurrences) {
      if (o.symbol_roles & (ROLE_DEFINITION | ROLE_IMPORT)) continue;
      const def = scope.indexerDefs.get(o.symbol);
      if (!def?.callable || o.range.length < 3) continue;
      const to = scope.mapped.get(o.symbol);
      if (!to || !scope.scored.has(to)) {
        dropped.target++;
        continue;
      }
      const line = o.range[0]! + 1;
      let from: string | null;
      if (bodies.length > 0) {
        let inner: Body | undefined;
        for (let k = bodies.length - 1; k >= 0 && !inner; k--)
          if (within(bodies[k]!, o.range[0]!, o.range[1]!)) inner = bodies[k];
        from = inner ? lift(scope, inner.ref) : null;
      } else from = callerAt(scope, doc.relative_path, line);
      if (!from) {
        dropped.caller++;
        continue;
      }
      add(edges, from, to, [line]);
    }
  }
  return { edges, dropped };
}

/** Rule 5, engine side. */
export function engineEdges(scope: Scope, resolved: ResolveOutput): { edges: EdgeSet; dropped: Dropped } {
  const edges: EdgeSet = new Map();
  const dropped: Dropped = { target: 0, caller: 0, unindexed: 0 };
  for (const e of resolved.edges) {
    if (e.label !== 'calls' && e.label !== 'references') continue;
    if (!scope.indexed.has(parseSymbolRef(e.from)?.file_path ?? '')) {
      dropped.unindexed++;
      continue;
    }
    if (!scope.scored.has(e.to)) {
      dropped.target++;
      continue;
    }
    const from = lift(scope, e.from);
    if (!from) {
      dropped.caller++;
      continue;
    }
    add(edges, from, e.to, e.lines, e.provenance);
  }
  return { edges, dropped };
}

export interface GitnexusCall {
  fromFile: string;
  fromName: string;
  fromLine: number;
  toFile: string;
  toName: string;
  toLine: number;
}

/** Rule 5, GitNexus side. */
export function gitnexusEdges(scope: Scope, calls: GitnexusCall[]): { edges: EdgeSet; dropped: Dropped } {
  const edges: EdgeSet = new Map();
  const dropped: Dropped = { target: 0, caller: 0, unindexed: 0 };
  const ref = (file: string, name: string, line: number): string | null => {
    const key = matchDefinition(
      { symbol: '', path: file, name, container: null, line: line + 1, body: null, callable: true },
      scope.defsByFile.get(file),
    );
    return key ? symbolRef(file, key) : null;
  };
  for (const c of calls) {
    if (!scope.indexed.has(c.fromFile)) {
      dropped.unindexed++;
      continue;
    }
    const to = ref(c.toFile, c.toName, c.toLine);
    if (!to || !scope.scored.has(to)) {
      dropped.target++;
      continue;
    }
    const a = ref(c.fromFile, c.fromName, c.fromLine);
    const from = a ? lift(scope, a) : null;
    if (!from) {
      dropped.caller++;
      continue;
    }
    add(edges, from, to, []);
  }
  return { edges, dropped };
}

/** Engine callers outside the indexed files are dropped before scoring (rule 6); the truth has none there. */
export interface Score {
  tp: number;
  predicted: number;
  truth: number;
}

export function score(predicted: EdgeSet, truth: EdgeSet): Score & { fp: string[]; fn: string[] } {
  let tp = 0;
  const fp: string[] = [];
  for (const k of predicted.keys()) {
    if (truth.has(k)) tp++;
    else fp.push(k);
  }
  const fn = [...truth.keys()].filter((k) => !predicted.has(k));
  return { tp, predicted: predicted.size, truth: truth.size, fp, fn };
}

export function prf(s: Score): { p: number; r: number; f1: number } {
  const p = s.predicted === 0 ? 0 : s.tp / s.predicted;
  const r = s.truth === 0 ? 0 : s.tp / s.truth;
  return { p, r, f1: p + r === 0 ? 0 : (2 * p * r) / (p + r) };
}

export function fmt(s: Score): string {
  const { p, r, f1 } = prf(s);
  return `P ${p.toFixed(3)} R ${r.toFixed(3)} F1 ${f1.toFixed(3)} (tp ${s.tp}, predicted ${s.predicted}, truth ${s.truth})`;
}
