/**
 * From a SCIP index to symbol edges (pure: an index and, where needed, the files' lines and definitions in, edges
 * out). Shared by the precise sync step (activities/precise/) and the truth harness (bench/truth-symbols/).
 *
 * The rules (docs/precise.md):
 * - A *callable* is a symbol the index defines (not `local N`) whose last descriptor is a method (`name(...).`: a
 *   function or method in every SCIP indexer), or a term with an enclosing range (scip-typescript: a `const f = () =>`
 *   or a property holding a function; only scip-typescript's terms count: other indexers give every field a range).
 * - A *use* is an occurrence without the definition or import role. Its *caller* is the innermost callable whose
 *   body holds it: the body is the definition's enclosing_range where the indexer writes one (scip-typescript,
 *   scip-python, scip-go 0.2 as a typed range); otherwise (scip-java writes none) the caller hook passed in (the syntax tree's extent of the
 *   definition starting at that line).
 * - A use of a callable is a *call* when the character after the name (spaces, `?.` and a generic argument list
 *   skipped) is `(`, and a *reference* otherwise (a function passed as a value). Without the file's text, every use
 *   is a call.
 * - A use of a symbol the index does not define is *external*: kept with its package moniker, unless the symbol is of
 *   a package the index defines symbols of (the repository's own: a member of an anonymous type literal, numbered by
 *   scip-typescript in the order it meets them, or a symbol of a file outside every project). Those are neither edges
 *   nor external: no other repository can join on them.
 */
import { ROLE_DEFINITION, ROLE_IMPORT, type ScipDocument, type ScipIndex } from './scip.ts';

/** A SCIP symbol's parts: `<scheme> <manager> <package> <version> <descriptors>` (scip.proto, Symbol). */
export interface ScipMoniker {
  scheme: string;
  manager: string;
  package: string;
  version: string;
  descriptor: string;
}

/** Splits a global SCIP symbol into its moniker parts (a double space escapes a space); null for `local N`. */
export function parseScipSymbol(symbol: string): ScipMoniker | null {
  if (symbol.startsWith('local ')) return null;
  const parts: string[] = [];
  let cur = '';
  let i = 0;
  while (i < symbol.length && parts.length < 4) {
    const c = symbol[i]!;
    if (c === ' ') {
      if (symbol[i + 1] === ' ') {
        cur += ' ';
        i += 2;
        continue;
      }
      parts.push(cur);
      cur = '';
      i++;
      continue;
    }
    cur += c;
    i++;
  }
  if (parts.length < 4) return null;
  const norm = (s: string) => (s === '.' ? '' : s);
  return {
    scheme: parts[0]!,
    manager: norm(parts[1]!),
    package: norm(parts[2]!),
    version: norm(parts[3]!),
    descriptor: symbol.slice(i),
  };
}

export type DescriptorSuffix =
  'namespace' | 'type' | 'term' | 'method' | 'type_parameter' | 'parameter' | 'meta' | 'macro';

/** The descriptors of a symbol, in order: name (backticks removed) and suffix. */
export function parseDescriptors(descriptor: string): Array<{ name: string; suffix: DescriptorSuffix }> {
  const out: Array<{ name: string; suffix: DescriptorSuffix }> = [];
  let i = 0;
  const readName = (): string => {
    if (descriptor[i] === '`') {
      let name = '';
      i++;
      while (i < descriptor.length) {
        if (descriptor[i] === '`') {
          if (descriptor[i + 1] === '`') {
            name += '`';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        name += descriptor[i++];
      }
      return name;
    }
    let name = '';
    while (i < descriptor.length && /[\w$+-]/.test(descriptor[i]!)) name += descriptor[i++];
    return name;
  };
  while (i < descriptor.length) {
    if (descriptor[i] === '[') {
      i++;
      const name = readName();
      i++; // ]
      out.push({ name, suffix: 'type_parameter' });
      continue;
    }
    if (descriptor[i] === '(') {
      i++;
      const name = readName();
      i++; // )
      out.push({ name, suffix: 'parameter' });
      continue;
    }
    const name = readName();
    const c = descriptor[i];
    if (c === '/') out.push({ name, suffix: 'namespace' });
    else if (c === '#') out.push({ name, suffix: 'type' });
    else if (c === '.') out.push({ name, suffix: 'term' });
    else if (c === ':') out.push({ name, suffix: 'meta' });
    else if (c === '!') out.push({ name, suffix: 'macro' });
    else if (c === '(') {
      // method: name(disambiguator).
      const close = descriptor.indexOf(').', i);
      if (close < 0) break;
      i = close + 1;
      out.push({ name, suffix: 'method' });
    } else break;
    i++;
  }
  return out;
}

/** A definition of the index: its symbol, file, name and 1-based name line; the body where the indexer wrote one. */
export interface ScipDefinition {
  symbol: string;
  path: string;
  /** The last descriptor's name (`<constructor>`/`<init>` as written). */
  name: string;
  /** The enclosing type's name (`Context` for `Context#text().`), or null. */
  container: string | null;
  /** 1-based line of the definition's name. */
  line: number;
  /** 0-based [startLine, startChar, endLine, endChar] of the body (enclosing_range), or null. */
  body: [number, number, number, number] | null;
  callable: boolean;
}

function range4(r: number[]): [number, number, number, number] | null {
  if (r.length === 4) return [r[0]!, r[1]!, r[2]!, r[3]!];
  if (r.length === 3) return [r[0]!, r[1]!, r[0]!, r[2]!];
  return null;
}

function before(aLine: number, aChar: number, bLine: number, bChar: number): boolean {
  return aLine < bLine || (aLine === bLine && aChar <= bChar);
}

/** Every global definition of the index (first definition occurrence per symbol), by symbol. */
export function scipDefinitions(index: ScipIndex): Map<string, ScipDefinition> {
  const defs = new Map<string, ScipDefinition>();
  // Only scip-typescript gives a term an enclosing range because it holds a function; scip-go gives one to every
  // struct field and variable.
  const termBodies = index.tool.name === 'scip-typescript';
  for (const doc of index.documents) {
    for (const o of doc.occurrences) {
      if ((o.symbol_roles & ROLE_DEFINITION) === 0 || defs.has(o.symbol)) continue;
      const m = parseScipSymbol(o.symbol);
      if (!m) continue;
      const ds = parseDescriptors(m.descriptor);
      const last = ds[ds.length - 1];
      if (!last) continue;
      const body = range4(o.enclosing_range);
      const callable = last.suffix === 'method' || (termBodies && last.suffix === 'term' && body !== null);
      let container: string | null = null;
      for (let k = ds.length - 2; k >= 0; k--) {
        if (ds[k]!.suffix === 'type') {
          container = ds[k]!.name;
          break;
        }
        if (ds[k]!.suffix === 'namespace') break;
      }
      defs.set(o.symbol, {
        symbol: o.symbol,
        path: doc.relative_path,
        name: last.name,
        container,
        line: (o.range[0] ?? 0) + 1,
        body,
        callable,
      });
    }
  }
  return defs;
}

/** The package a symbol belongs to: scheme, manager, name and version. */
function packageKey(m: ScipMoniker): string {
  return `${m.scheme}\u0000${m.manager}\u0000${m.package}\u0000${m.version}`;
}

/** A use site grouped per (caller, target): the 1-based lines and the number of sites. */
export interface ScipUseEdge {
  from: string;
  to: string;
  kind: 'call' | 'reference';
  path: string;
  lines: number[];
  count: number;
}

export interface ScipExternalUse {
  from: string;
  symbol: string;
  moniker: ScipMoniker;
  path: string;
  lines: number[];
  count: number;
}

export interface ScipUseOptions {
  /**
   * A callable's body where the index has none: the 1-based [first, last] lines of the definition whose name is on
   * `line` in `path` (the syntax tree's extent), or null.
   */
  bodyOf?: (path: string, def: ScipDefinition) => [number, number] | null;
  /** A file's lines (to tell calls from references); absent: every use counts as a call. */
  linesOf?: (path: string) => string[] | null;
}

/** After a name: `(` → call (skipping spaces, `?.`, `!` and one generic argument list `<...>`). */
export function isCallSite(line: string, endChar: number): boolean {
  let i = endChar;
  const skipSpace = () => {
    while (i < line.length && (line[i] === ' ' || line[i] === '\t')) i++;
  };
  skipSpace();
  if (line[i] === '!') i++;
  if (line.startsWith('?.', i)) i += 2;
  skipSpace();
  if (line[i] === '<') {
    let depth = 0;
    for (; i < line.length; i++) {
      if (line[i] === '<') depth++;
      else if (line[i] === '>' && --depth === 0) {
        i++;
        break;
      }
    }
    skipSpace();
    if (line.startsWith('?.', i)) i += 2;
  }
  return line[i] === '(';
}

/**
 * The uses of callables inside other callables' bodies (internal edges, one per caller, target and kind), and the
 * uses of symbols outside the index from inside callables (external, with monikers). Deterministic: sorted.
 */
export function scipUses(
  index: ScipIndex,
  defs: Map<string, ScipDefinition>,
  options: ScipUseOptions = {},
): { edges: ScipUseEdge[]; external: ScipExternalUse[] } {
  const edges = new Map<string, ScipUseEdge>();
  const external = new Map<string, ScipExternalUse>();
  const defined = new Set(defs.keys());
  // The index's own packages: a symbol of one of them that the index does not define (a member of an anonymous type
  // literal, a file outside every project) is neither an edge nor an external use (see the rules above).
  const own = new Set<string>();
  for (const d of defs.values()) {
    const m = parseScipSymbol(d.symbol);
    if (m) own.add(packageKey(m));
  }
  for (const doc of index.documents) {
    const bodies = bodiesOf(doc, defs, options);
    if (bodies.length === 0) continue;
    const lines = options.linesOf?.(doc.relative_path) ?? null;
    for (const o of doc.occurrences) {
      if (o.symbol_roles & (ROLE_DEFINITION | ROLE_IMPORT)) continue;
      if (o.symbol.startsWith('local ')) continue;
      const r = range4(o.range);
      if (!r) continue;
      // Innermost body holding the use: the last one (bodies sorted by start) that contains it.
      let caller: string | null = null;
      for (let k = bodies.length - 1; k >= 0; k--) {
        const b = bodies[k]!;
        if (before(b.range[0], b.range[1], r[0], r[1]) && before(r[2], r[3], b.range[2], b.range[3])) {
          caller = b.symbol;
          break;
        }
      }
      if (caller === null) continue;
      const line = r[0] + 1;
      if (defined.has(o.symbol)) {
        const target = defs.get(o.symbol)!;
        if (!target.callable) continue;
        const text = lines?.[r[0]];
        const kind = text === undefined || isCallSite(text, r[3]) ? 'call' : 'reference';
        const key = `${caller}\u0000${o.symbol}\u0000${kind}`;
        let e = edges.get(key);
        if (!e)
          edges.set(key, (e = { from: caller, to: o.symbol, kind, path: doc.relative_path, lines: [], count: 0 }));
        e.lines.push(line);
        e.count++;
      } else {
        const moniker = parseScipSymbol(o.symbol);
        if (!moniker || own.has(packageKey(moniker))) continue;
        const key = `${caller}\u0000${o.symbol}`;
        let e = external.get(key);
        if (!e)
          external.set(
            key,
            (e = { from: caller, symbol: o.symbol, moniker, path: doc.relative_path, lines: [], count: 0 }),
          );
        e.lines.push(line);
        e.count++;
      }
    }
  }
  const tidy = <T extends { lines: number[] }>(e: T): T => {
    e.lines = [...new Set(e.lines)].sort((a, b) => a - b);
    return e;
  };
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return {
    edges: [...edges.values()].map(tidy).sort((a, b) => cmp(a.from, b.from) || cmp(a.to, b.to) || cmp(a.kind, b.kind)),
    external: [...external.values()].map(tidy).sort((a, b) => cmp(a.from, b.from) || cmp(a.symbol, b.symbol)),
  };
}

interface Body {
  symbol: string;
  range: [number, number, number, number];
}

function bodiesOf(doc: ScipDocument, defs: Map<string, ScipDefinition>, options: ScipUseOptions): Body[] {
  const out: Body[] = [];
  const seen = new Set<string>();
  for (const o of doc.occurrences) {
    if ((o.symbol_roles & ROLE_DEFINITION) === 0 || seen.has(o.symbol)) continue;
    const d = defs.get(o.symbol);
    if (!d || !d.callable || d.path !== doc.relative_path) continue;
    seen.add(o.symbol);
    if (d.body) out.push({ symbol: d.symbol, range: d.body });
    else {
      const span = options.bodyOf?.(doc.relative_path, d);
      if (span) out.push({ symbol: d.symbol, range: [span[0] - 1, 0, span[1] - 1, Number.MAX_SAFE_INTEGER] });
    }
  }
  // Outer before inner: by start, then by the later end first.
  out.sort(
    (a, b) => a.range[0] - b.range[0] || a.range[1] - b.range[1] || b.range[2] - a.range[2] || b.range[3] - a.range[3],
  );
  return out;
}

/** An engine definition to match against (FileAnalysis.symbols / DefinitionFact: key, name, kind, lines). */
export interface EngineDefinition {
  key: string;
  name: string;
  kind: string;
  line: number;
  end_line: number;
}

/**
 * The matching rule between an indexer's definition and the engine's: same file; the engine's definition spans the
 * line of the indexer's name (its [line, end_line]); the names are equal, where the indexer's `<init>` (Java) is the
 * class's name and `<constructor>` (TypeScript) is `constructor`. Among several, the innermost (latest start, then
 * earliest end). Returns the engine key, or null.
 */
export function matchDefinition(
  def: ScipDefinition,
  candidates: readonly EngineDefinition[] | undefined,
): string | null {
  if (!candidates) return null;
  const name =
    def.name === '<init>' ? (def.container ?? def.name) : def.name === '<constructor>' ? 'constructor' : def.name;
  let best: EngineDefinition | null = null;
  for (const c of candidates) {
    if (c.name !== name || def.line < c.line || def.line > c.end_line) continue;
    if (!best || c.line > best.line || (c.line === best.line && c.end_line < best.end_line)) best = c;
  }
  return best?.key ?? null;
}
