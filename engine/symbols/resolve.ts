import type {
  ImplFact,
  BindingFact,
  DefinitionFact,
  ImportBindingFact,
  LanguageStats,
  Provenance,
  ResolveInput,
  ResolveOutput,
  SymbolEdge,
  SymbolEdgeLabel,
  SymbolFileInput,
  SupertypeFact,
  UnresolvedReason,
  UnresolvedUse,
  UseFact,
} from './types.ts';
import { SYMBOL_FACTS_VERSION, symbolRef } from './types.ts';
import type { SymbolLanguage } from './plugin.ts';
import { symbolLanguage } from './registry.ts';
import { splitTopLevel } from './plugin.ts';

/**
 * The repo-wide symbol resolver (issue 28): per-file facts and each import's file-level targets in, Symbol -> Symbol
 * edges with provenance and confidence, the unresolved uses and stats out. Pure and deterministic: files are read in
 * path order and the output is sorted, so an incremental sync equals a full one. The rules per language are in
 * docs/engine.md ("Symbol graph").
 */

/** Confidence per provenance (an edge keeps its best site's). */
export const CONFIDENCE: Record<Provenance, number> = {
  scip: 1,
  scope: 0.95,
  import: 0.95,
  qualified: 0.95,
  self: 0.95,
  receiver_type: 0.9,
  hierarchy: 0.85,
  unique_name: 0.5,
};

const FUNCTION_KINDS = new Set(['function', 'method', 'constructor']);
const TYPE_KINDS = new Set(['class', 'interface', 'struct', 'trait', 'enum', 'type', 'record', 'object', 'protocol']);
const MAX_DEPTH = 8;

/**
 * An edge being collected: its ends as the files and keys they name (the SymbolRef strings are made once, for the
 * output: hundreds of thousands of strings that would otherwise live through the whole run and be copied by every
 * young-generation collection), its sites' lines, sorted and made distinct at the end.
 */
interface PendingEdge {
  label: SymbolEdgeLabel;
  fromPath: string;
  fromKey: string;
  toPath: string;
  toKey: string;
  provenance: Provenance;
  confidence: number;
  count: number;
  sites: number[];
}

interface FileCtx {
  /** Implementation blocks of the file (SymbolFacts.impls). */
  impls?: ImplFact[];
  path: string;
  dir: string;
  language: string;
  /** Languages whose names reach each other (JavaScript and TypeScript import each other). */
  family: string;
  lang: SymbolLanguage;
  defs: DefinitionFact[];
  byKey: Map<string, DefinitionFact>;
  /** Definitions by container key ('' = top level) and name. */
  children: Map<string, Map<string, DefinitionFact[]>>;
  /** Typed names by scope key ('' = top level) and name. */
  bindings: Map<string, Map<string, BindingFact>>;
  /** Import bindings by local name (re-exports excluded). */
  imports: Map<string, ImportBindingFact>;
  /** `from m import *`, Java `import a.b.*`, Go dot imports. */
  stars: ImportBindingFact[];
  reexports: ImportBindingFact[];
  targets: Map<string, string[]>;
  /** The package key (directory + package clause) where the language has package scope; else null. */
  pkg: string | null;
  locals: Map<string, Set<string>>;
  uses: UseFact[];
  topLevelUses: number;
  defaultExport: string | undefined;
  /** Go: the imports without alias (bound by the target package's name). */
  goImports: ImportBindingFact[];
  /** Go: what each name bound by goImports denotes (the first import binding it), made on first use. */
  goNames?: Map<string, Entity>;
  /** scopes(): the chain of scope keys from a key outward, made on first use per key. */
  scopeChains: Map<string | null, string[]>;
}

interface Member {
  file: FileCtx;
  def: DefinitionFact;
}

/** A type: a class-like definition, or (Go) a named type known only by its methods. */
interface TypeEntity {
  id: string;
  name: string;
  file: FileCtx | null;
  def: DefinitionFact | null;
  pkg: string | null;
}

/** What a name or an expression denotes. */
type Entity =
  | { t: 'def'; m: Member; prov: Provenance }
  /** A module (file), a package (`pkg`), or a TypeScript namespace of the file (`ns`: its chain, `a` or `a.b`). */
  | { t: 'module'; files: FileCtx[]; pkg: string | null; prov: Provenance; ns?: string }
  | { t: 'instance'; type: TypeEntity; prov: Provenance }
  | { t: 'static'; type: TypeEntity; prov: Provenance }
  | { t: 'external' }
  | { t: 'dynamic' }
  | { t: 'ambiguous' }
  | { t: 'unknown' };

const EXTERNAL: Entity = { t: 'external' };
const DYNAMIC: Entity = { t: 'dynamic' };
const UNKNOWN: Entity = { t: 'unknown' };
const AMBIGUOUS: Entity = { t: 'ambiguous' };

/** Kinds a type implements rather than inherits from (implementsByTargetKind). */
const IMPLEMENTABLE = new Set(['interface', 'protocol', 'trait']);

/** The module a file defines, by name (Rust: `a/b.rs` and `a/b/mod.rs` are b; a crate root is its folder's). */
function moduleNameOf(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  if (base === 'mod.rs' || base === 'lib.rs' || base === 'main.rs') return stemOf(dirOf(path));
  return stemOf(path);
}

function dirOf(path: string): string {
  const at = path.lastIndexOf('/');
  return at === -1 ? '' : path.slice(0, at);
}

function stemOf(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.indexOf('.');
  return dot === -1 ? base : base.slice(0, dot);
}

function familyOf(language: string): string {
  return language === 'typescript' || language === 'javascript' ? 'ecmascript' : language;
}

function specKey(spec: string, kind: string | undefined): string {
  return `${kind ?? ''}\0${spec}`;
}

function emptyStats(): LanguageStats {
  return {
    files: 0,
    definitions: 0,
    uses: 0,
    top_level_uses: 0,
    edges: {},
    provenance: {},
    external: 0,
    unresolved: {},
  };
}

/** Go's package name for an import path outside the repository: the last segment without a version suffix. */
function goExternalName(spec: string): string {
  const parts = spec.split('/');
  let last = parts[parts.length - 1]!;
  if (/^v\d+$/.test(last) && parts.length > 1) last = parts[parts.length - 2]!;
  return last
    .replace(/\.v\d+$/, '')
    .replace(/^go-/, '')
    .replace(/-go$/, '')
    .replace(/[.-]/g, '_');
}

/**
 * The resolver's edges in parts, as it goes (resolveSymbolGraph's second argument): part k holds the edges whose
 * from-symbol's file path p lies in [cuts[k - 1], cuts[k]) (the first part below cuts[0], the last from the last cut
 * on; edgePartOf). Every edge of a file is known once the resolver has read that file's uses (files are read in path
 * order), so each part is handed over as soon as the resolver has passed it, before the rest is resolved: its edges
 * sorted by (label, from, to), exactly the output's edges of that part. The output's `edges` is then empty.
 */
export interface EdgeParts {
  cuts: readonly string[];
  onPart: (part: number, edges: SymbolEdge[]) => void;
}

export function resolveSymbolGraph(input: ResolveInput, parts?: EdgeParts): ResolveOutput {
  return new Resolver(input).run(parts);
}

const comparePaths = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The part of a file path under `cuts` (EdgeParts): the number of cuts at or below it. */
export function edgePartOf(cuts: readonly string[], path: string): number {
  let lo = 0;
  let hi = cuts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cuts[mid]! <= path) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Cuts (EdgeParts) for `n` parts of about as many files each, from the files' paths (any order). */
export function edgePartCuts(paths: readonly string[], n: number): string[] {
  const sorted = [...new Set(paths)].sort(comparePaths);
  const cuts: string[] = [];
  for (let k = 1; k < n; k++) {
    const at = Math.floor((sorted.length * k) / n);
    if (at > 0 && at < sorted.length && sorted[at]! > (cuts[cuts.length - 1] ?? '')) cuts.push(sorted[at]!);
  }
  return cuts;
}

/** Edges sorted by (label, from, to) cut into the parts of `cuts` (what EdgeParts hands over, all at once). */
export function edgesByPart(edges: readonly SymbolEdge[], cuts: readonly string[]): SymbolEdge[][] {
  const parts: SymbolEdge[][] = Array.from({ length: cuts.length + 1 }, () => []);
  for (const e of edges) parts[edgePartOf(cuts, e.from.slice(0, e.from.lastIndexOf('#')))]!.push(e);
  return parts;
}

class Resolver {
  private readonly files = new Map<string, FileCtx>();
  private readonly ordered: FileCtx[] = [];
  private readonly packages = new Map<string, FileCtx[]>();
  /** Package scope: the top-level definitions (methods excluded) and typed names by package key and name. */
  private readonly pkgTop = new Map<string, Map<string, Member[]>>();
  private readonly pkgBindings = new Map<string, Map<string, { file: FileCtx; b: BindingFact }>>();
  /** Go: methods by package key, receiver type name and method name. */
  private readonly pkgMethods = new Map<string, Map<string, Map<string, Member[]>>>();
  /** Open classes (SymbolLanguage.openClasses): type definitions by package and key. */
  private readonly pkgSameKey = new Map<string, Map<string, Member[]>>();
  /** Definitions by family and name, for the unique-name fallback. */
  private readonly byName = new Map<string, Map<string, Member[]>>();
  private readonly edges: PendingEdge[] = [];
  private readonly unresolved: UnresolvedUse[] = [];
  private readonly stats = new Map<string, LanguageStats>();
  private readonly typeCache = new Map<string, TypeEntity>();
  private readonly membersCache = new Map<string, Map<string, Member[]>>();
  private readonly superCache = new Map<string, { types: TypeEntity[]; open: boolean }>();
  /** typeName() by file path, scope and text. */
  private readonly typeNameCache = new Map<string, Map<string, Map<string, Entity>>>();
  /** typeOf() by definition (in front of typeCache, by id). */
  private readonly typeByDef = new Map<DefinitionFact, TypeEntity>();
  /** pkgType() by package and name (null: no such type). */
  private readonly pkgTypeCache = new Map<string, Map<string, TypeEntity | null>>();

  constructor(input: ResolveInput) {
    const sorted = [...input.files].sort((a, b) =>
      a.file_path < b.file_path ? -1 : a.file_path > b.file_path ? 1 : 0,
    );
    for (const f of sorted) {
      const ctx = this.index(f);
      if (ctx) {
        this.files.set(ctx.path, ctx);
        this.ordered.push(ctx);
      }
    }
  }

  private index(f: SymbolFileInput): FileCtx | null {
    const lang = symbolLanguage(f.language);
    // Facts of another version (stored by an older engine) are not read: the caller re-extracts them.
    if (!lang || f.facts?.version !== SYMBOL_FACTS_VERSION) return null;
    const facts = f.facts;
    const children = new Map<string, Map<string, DefinitionFact[]>>();
    const byKey = new Map<string, DefinitionFact>();
    const locals = new Map<string, Set<string>>();
    for (const d of facts.defs) {
      byKey.set(d.key, d);
      const c = d.container ?? '';
      let m = children.get(c);
      if (!m) children.set(c, (m = new Map<string, DefinitionFact[]>()));
      const list = m.get(d.name);
      if (list) list.push(d);
      else m.set(d.name, [d]);
      if (d.locals) locals.set(d.key, new Set(d.locals));
    }
    const bindings = new Map<string, Map<string, BindingFact>>();
    for (const b of facts.bindings) {
      const s = b[1] === -1 ? '' : (facts.defs[b[1]]?.key ?? '');
      let m = bindings.get(s);
      if (!m) bindings.set(s, (m = new Map<string, BindingFact>()));
      // The first binding of a name wins (a declared type before an inferred one).
      if (!m.has(b[2])) m.set(b[2], b);
    }
    const imports = new Map<string, ImportBindingFact>();
    const stars: ImportBindingFact[] = [];
    const reexports: ImportBindingFact[] = [];
    for (const b of facts.imports) {
      if (b.reexport) reexports.push(b);
      else if (b.imported === '*') stars.push(b);
      else if (b.local !== null && !imports.has(b.local)) imports.set(b.local, b);
    }
    const targets = new Map<string, string[]>();
    for (const r of f.imports) targets.set(specKey(r.spec, r.kind), r.targets);
    const dir = dirOf(f.file_path);
    const pkgDir = lang.packageOf ? lang.packageOf(f.file_path) : lang.packageByName ? '' : dir;
    const pkg = lang.packageScope ? `${pkgDir}\0${facts.package ?? ''}` : null;
    const ctx: FileCtx = {
      path: f.file_path,
      dir,
      language: f.language,
      family: familyOf(f.language),
      lang,
      defs: facts.defs,
      byKey,
      children,
      bindings,
      imports,
      stars,
      reexports,
      targets,
      pkg,
      locals,
      uses: facts.uses,
      topLevelUses: facts.top_level_uses,
      defaultExport: facts.default_export,
      impls: facts.impls,
      goImports: f.language === 'go' ? facts.imports.filter((b) => b.local === null && b.imported === null) : [],
      scopeChains: new Map(),
    };
    if (pkg !== null) {
      const list = this.packages.get(pkg);
      if (list) list.push(ctx);
      else this.packages.set(pkg, [ctx]);
    }
    let familyNames = this.byName.get(ctx.family);
    if (!familyNames) this.byName.set(ctx.family, (familyNames = new Map<string, Member[]>()));
    for (const d of facts.defs) {
      const list = familyNames.get(d.name);
      if (list) list.push({ file: ctx, def: d });
      else familyNames.set(d.name, [{ file: ctx, def: d }]);
      if (pkg !== null && d.container === null && d.symbol_kind !== 'method') {
        let names = this.pkgTop.get(pkg);
        if (!names) this.pkgTop.set(pkg, (names = new Map<string, Member[]>()));
        const list = names.get(d.name);
        if (list) list.push({ file: ctx, def: d });
        else names.set(d.name, [{ file: ctx, def: d }]);
      }
      if (pkg !== null && lang.openClasses && TYPE_KINDS.has(d.symbol_kind)) {
        let keys = this.pkgSameKey.get(pkg);
        if (!keys) this.pkgSameKey.set(pkg, (keys = new Map<string, Member[]>()));
        const base = d.key.replace(/~\d+$/, '');
        const same = keys.get(base);
        if (same) same.push({ file: ctx, def: d });
        else keys.set(base, [{ file: ctx, def: d }]);
      }
      if (pkg !== null && d.container === null && d.container_name !== undefined && d.symbol_kind === 'method') {
        let types = this.pkgMethods.get(pkg);
        if (!types) this.pkgMethods.set(pkg, (types = new Map<string, Map<string, Member[]>>()));
        let names = types.get(d.container_name);
        if (!names) types.set(d.container_name, (names = new Map<string, Member[]>()));
        const ms = names.get(d.name);
        if (ms) ms.push({ file: ctx, def: d });
        else names.set(d.name, [{ file: ctx, def: d }]);
      }
    }
    if (pkg !== null) {
      let names = this.pkgBindings.get(pkg);
      if (!names) this.pkgBindings.set(pkg, (names = new Map<string, { file: FileCtx; b: BindingFact }>()));
      for (const [name, b] of bindings.get('') ?? []) if (!names.has(name)) names.set(name, { file: ctx, b });
    }
    return ctx;
  }

  /** Pending edges by part (EdgeParts), and each file's part. */
  private partEdges: PendingEdge[][] | null = null;
  private readonly partOf = new Map<FileCtx, number>();

  run(parts?: EdgeParts): ResolveOutput {
    if (parts) {
      this.partEdges = Array.from({ length: parts.cuts.length + 1 }, () => []);
      for (const file of this.ordered) this.partOf.set(file, edgePartOf(parts.cuts, file.path));
    }
    for (const file of this.ordered) if (file.impls) this.implBlocks(file, file.impls, this.statsFor(file.language));
    for (const file of this.ordered) {
      const st = this.statsFor(file.language);
      st.files++;
      st.definitions += file.defs.length;
      for (const d of file.defs) {
        if (d.supertypes) this.hierarchy(file, d, d.supertypes, st);
        if (d.symbol_kind === 'method' && d.container !== null) this.overrides(file, d, st);
      }
    }
    // Parts handed over: those below `done` (every file before the current one read).
    let done = 0;
    for (const file of this.ordered) {
      if (parts) for (const part = this.partOf.get(file)!; done < part; done++) this.handOver(parts, done);
      const st = this.statsFor(file.language);
      st.top_level_uses += file.topLevelUses;
      for (const use of file.uses) {
        st.uses++;
        this.use(file, use, st);
      }
    }
    if (parts) for (; done <= parts.cuts.length; done++) this.handOver(parts, done);
    return this.output(parts !== undefined);
  }

  /** A part's edges, final (its files' uses are all read), sorted as the output's. */
  private handOver(parts: EdgeParts, part: number): void {
    const pending = this.partEdges![part]!;
    this.partEdges![part] = [];
    parts.onPart(part, sortEdges(pending.map(finalEdge)));
  }

  private statsFor(language: string): LanguageStats {
    let s = this.stats.get(language);
    if (!s) this.stats.set(language, (s = emptyStats()));
    return s;
  }

  // -------------------------------------------------------------------------------------------------------------
  // Output
  // -------------------------------------------------------------------------------------------------------------

  /** Edges by label, source definition and target definition (object identity: no key strings per site). */
  private readonly edgeIndex = new Map<
    SymbolEdgeLabel,
    Map<DefinitionFact, Map<DefinitionFact, PendingEdge>>
  >();

  private edge(
    label: SymbolEdgeLabel,
    from: FileCtx,
    fromKey: string,
    to: Member,
    prov: Provenance,
    line: number | null,
    st: LanguageStats,
  ): void {
    const fromDef = from.byKey.get(fromKey);
    if (!fromDef) return;
    if (fromDef === to.def && label !== 'calls') return;
    let byFrom = this.edgeIndex.get(label);
    if (!byFrom) this.edgeIndex.set(label, (byFrom = new Map<DefinitionFact, Map<DefinitionFact, PendingEdge>>()));
    let byTo = byFrom.get(fromDef);
    if (!byTo) byFrom.set(fromDef, (byTo = new Map<DefinitionFact, PendingEdge>()));
    const conf = CONFIDENCE[prov];
    let e = byTo.get(to.def);
    if (!e) {
      e = {
        label,
        fromPath: from.path,
        fromKey,
        toPath: to.file.path,
        toKey: to.def.key,
        provenance: prov,
        confidence: conf,
        count: 0,
        sites: [],
      };
      byTo.set(to.def, e);
      this.edges.push(e);
      if (this.partEdges) this.partEdges[this.partOf.get(from)!]!.push(e);
      st.edges[label] = (st.edges[label] ?? 0) + 1;
      st.provenance[prov] = (st.provenance[prov] ?? 0) + 1;
    } else if (conf > e.confidence) {
      st.provenance[e.provenance] = (st.provenance[e.provenance] ?? 1) - 1;
      st.provenance[prov] = (st.provenance[prov] ?? 0) + 1;
      e.provenance = prov;
      e.confidence = conf;
    }
    e.count++;
    if (line !== null) e.sites.push(line);
  }

  private miss(
    file: FileCtx,
    fromKey: string,
    kind: UnresolvedUse['kind'],
    text: string,
    line: number,
    reason: UnresolvedReason,
    st: LanguageStats,
  ): void {
    this.unresolved.push({ from: symbolRef(file.path, fromKey), kind, text, line, reason });
    st.unresolved[reason] = (st.unresolved[reason] ?? 0) + 1;
  }

  /** The output; without its edges when they were handed over in parts. */
  private output(handedOver: boolean): ResolveOutput {
    const edges = handedOver ? [] : sortEdges(this.edges.map(finalEdge));
    const cmp = comparePaths;
    this.unresolved.sort(
      (a, b) =>
        cmp(a.from, b.from) || a.line - b.line || cmp(a.text, b.text) || cmp(a.kind, b.kind) || cmp(a.reason, b.reason),
    );
    const by_language: Record<string, LanguageStats> = {};
    let external = 0;
    for (const [lang, s] of [...this.stats.entries()].sort(([a], [b]) => cmp(a, b))) {
      by_language[lang] = s;
      external += s.external;
    }
    return {
      edges,
      unresolved: this.unresolved,
      stats: { by_language, edges: this.edges.length, unresolved: this.unresolved.length, external },
    };
  }

  // -------------------------------------------------------------------------------------------------------------
  // Hierarchy
  // -------------------------------------------------------------------------------------------------------------

  private hierarchy(file: FileCtx, d: DefinitionFact, supertypes: readonly SupertypeFact[], st: LanguageStats): void {
    for (const s of supertypes) {
      const e = this.typeName(file, d.container, s.text);
      if (e.t === 'static' && e.type.def && e.type.file) {
        const label: SymbolEdgeLabel =
          s.relation === 'implements' ||
          (e.type.def.symbol_kind === 'interface' && d.symbol_kind !== 'interface' && file.language === 'go') ||
          (file.lang.implementsByTargetKind === true &&
            IMPLEMENTABLE.has(e.type.def.symbol_kind) &&
            !IMPLEMENTABLE.has(d.symbol_kind))
            ? 'implements'
            : 'inherits';
        this.edge(label, file, d.key, { file: e.type.file, def: e.type.def }, e.prov, null, st);
      } else if (e.t === 'external') st.external++;
      else if (e.t === 'static') continue;
      else this.miss(file, d.key, 'supertype', s.text, s.line, e.t === 'ambiguous' ? 'ambiguous' : 'unknown_name', st);
    }
  }

  private overrides(file: FileCtx, d: DefinitionFact, st: LanguageStats): void {
    const owner = file.byKey.get(d.container!);
    if (!owner || !TYPE_KINDS.has(owner.symbol_kind)) return;
    if (file.lang.constructorName !== null && d.name === file.lang.constructorName) return;
    const type = this.typeOf(file, owner);
    const found = this.lookupInSupertypes(type, d.name, d.arity ?? null, file.lang.overloads);
    if (found && found !== 'ambiguous' && found !== 'open' && found.def.symbol_kind === 'method')
      this.edge('overrides', file, d.key, found, 'hierarchy', null, st);
  }

  // -------------------------------------------------------------------------------------------------------------
  // Types and members
  // -------------------------------------------------------------------------------------------------------------

  private typeOf(file: FileCtx, def: DefinitionFact): TypeEntity {
    const known = this.typeByDef.get(def);
    if (known && known.file === file) return known;
    const id = symbolRef(file.path, def.key);
    let t = this.typeCache.get(id);
    if (!t) {
      t = { id, name: def.name, file, def, pkg: file.pkg };
      this.typeCache.set(id, t);
    }
    this.typeByDef.set(def, t);
    return t;
  }

  /** A Go named type known by its package (a def when one of its files declares it as struct or interface). */
  private pkgType(pkg: string, name: string): TypeEntity | null {
    let byName = this.pkgTypeCache.get(pkg);
    if (!byName) this.pkgTypeCache.set(pkg, (byName = new Map<string, TypeEntity | null>()));
    let t = byName.get(name);
    if (t === undefined) byName.set(name, (t = this.pkgTypeUncached(pkg, name)));
    return t;
  }

  private pkgTypeUncached(pkg: string, name: string): TypeEntity | null {
    const m = this.pkgTop
      .get(pkg)
      ?.get(name)
      ?.find((x) => TYPE_KINDS.has(x.def.symbol_kind));
    if (m) return this.typeOf(m.file, m.def);
    if (!this.pkgMethods.get(pkg)?.has(name)) return null;
    return { id: `pkg:${pkg}:${name}`, name, file: null, def: null, pkg };
  }

  private membersOf(type: TypeEntity): Map<string, Member[]> {
    let m = this.membersCache.get(type.id);
    if (m) return m;
    m = new Map();
    if (type.file && type.def) {
      for (const [name, defs] of type.file.children.get(type.def.key) ?? []) {
        m.set(
          name,
          defs.map((def) => ({ file: type.file!, def })),
        );
      }
    }
    if (type.file?.lang.companionObjects && type.def && type.def.symbol_kind !== 'object') {
      // The companion object beside the class (Scala): its members are reached through the class's name.
      for (const o of type.file.children.get(type.def.container ?? '')?.get(type.def.name) ?? []) {
        if (o.symbol_kind !== 'object') continue;
        for (const [name, defs] of type.file.children.get(o.key) ?? []) {
          const list = m.get(name) ?? [];
          m.set(name, [...list, ...defs.map((def) => ({ file: type.file!, def }))]);
        }
      }
    }
    if (type.pkg !== null && type.file?.lang.openClasses && type.def) {
      // The other definitions of the same type in the package (a reopened Ruby class, a C# partial class).
      for (const other of this.pkgSameKey.get(type.pkg)?.get(type.def.key.replace(/~\d+$/, '')) ?? []) {
        if (other.def === type.def) continue;
        for (const [name, defs] of other.file.children.get(other.def.key) ?? []) {
          const list = m.get(name) ?? [];
          m.set(name, [...list, ...defs.map((def) => ({ file: other.file, def }))]);
        }
      }
    }
    if (type.pkg !== null) {
      for (const [name, ms] of this.pkgMethods.get(type.pkg)?.get(type.name) ?? []) {
        const list = m.get(name);
        m.set(name, list ? [...list, ...ms] : ms);
      }
    }
    this.membersCache.set(type.id, m);
    return m;
  }

  /** Supertypes given by implementation blocks (Rust `impl Trait for T`), by type id; `open` marks unresolved ones. */
  private readonly implSupers = new Map<string, { types: TypeEntity[]; open: boolean }>();

  /**
   * Implementation blocks: the block's type (by name, in the file's scope) implements each supertype (an
   * `implements` edge from the type's definition), and each method of the block overrides the supertype's member of
   * its name. Runs before everything else, so that member lookups see the blocks' supertypes.
   */
  private implBlocks(file: FileCtx, impls: readonly ImplFact[], st: LanguageStats): void {
    for (const impl of impls) {
      const t = this.typeName(file, null, impl.type);
      const type = t.t === 'static' ? t.type : null;
      if (type === null) {
        if (t.t !== 'external')
          for (const s of impl.supertypes)
            this.miss(file, impl.methods[0] ?? '', 'supertype', s.text, s.line, 'unknown_name', st);
        continue;
      }
      let extra = this.implSupers.get(type.id);
      if (!extra) this.implSupers.set(type.id, (extra = { types: [], open: false }));
      for (const s of impl.supertypes) {
        const e = this.typeName(file, null, s.text);
        if (e.t !== 'static' || !e.type.def || !e.type.file) {
          extra.open = true;
          if (e.t === 'external') st.external++;
          continue;
        }
        extra.types.push(e.type);
        if (type.def && type.file) {
          const label: SymbolEdgeLabel = IMPLEMENTABLE.has(e.type.def.symbol_kind) ? 'implements' : 'inherits';
          this.edge(label, type.file, type.def.key, { file: e.type.file, def: e.type.def }, e.prov, null, st);
        }
        for (const key of impl.methods) {
          const d = file.byKey.get(key);
          if (!d) continue;
          const found = this.ownMember(e.type, d.name, d.arity ?? null, file.lang.overloads);
          if (found && found !== 'ambiguous') this.edge('overrides', file, key, found, 'hierarchy', null, st);
        }
      }
    }
  }

  /** The resolved supertypes of a type; `open` when one of them is outside the repository or unknown. */
  private supertypes(type: TypeEntity): { types: TypeEntity[]; open: boolean } {
    let s = this.superCache.get(type.id);
    if (s) return s;
    s = { types: [], open: false };
    this.superCache.set(type.id, s);
    const fromImpls = this.implSupers.get(type.id);
    if (fromImpls) {
      s.types.push(...fromImpls.types);
      if (fromImpls.open) s.open = true;
    }
    if (type.file && type.def) {
      const parts: Member[] = [{ file: type.file, def: type.def }];
      if (type.pkg !== null && type.file.lang.openClasses)
        for (const o of this.pkgSameKey.get(type.pkg)?.get(type.def.key.replace(/~\d+$/, '')) ?? [])
          if (o.def !== type.def) parts.push(o);
      for (const part of parts) {
        for (const sup of part.def.supertypes ?? []) {
          const e = this.typeName(part.file, part.def.container, sup.text);
          if (e.t === 'static' && e.type.id !== type.id) s.types.push(e.type);
          else s.open = true;
        }
      }
    }
    return s;
  }

  /** The arguments of the call being resolved (UseFact argTypes), while it is; their types read once. */
  private callArgs: CallArgs | null = null;

  /**
   * Overloads of one arity told apart by the arguments' types, as Java picks the most specific: the one candidate
   * whose parameters the arguments match most often exactly (same type, or a subtype the repository declares), none
   * of them impossibly (a primitive for a class, a repository type whose whole hierarchy lacks the parameter's type);
   * null (ambiguous) when no argument's type is known or candidates tie.
   */
  private byArgumentTypes(fit: Member[], call: CallArgs): Member | null {
    call.types ??= call.hints.map((h) => this.argumentType(call.file, call.scope, h));
    let best: Member | null = null;
    let bestScore = 0;
    let tie = false;
    for (const m of fit) {
      const params = paramTypesOfKey(m.def.key);
      if (params === null || params.length !== call.types.length) continue;
      let score = 0;
      let possible = true;
      for (let i = 0; i < params.length && possible; i++) {
        const fitness = this.argumentFits(call.types[i]!, params[i]!);
        if (fitness === 'no') possible = false;
        else if (fitness === 'exact') score++;
      }
      if (!possible || score === 0) continue;
      if (score > bestScore) {
        best = m;
        bestScore = score;
        tie = false;
      } else if (score === bestScore) tie = true;
    }
    return tie ? null : best;
  }

  /** An argument's type from its hint: a type name, a repository type, or null (unknown). */
  private argumentType(file: FileCtx, scope: string, hint: string): ArgType | null {
    if (hint === '') return null;
    if (!hint.startsWith('=')) {
      const t = this.typeName(file, scope, hint);
      return { name: lastSegment(hint), type: t.t === 'static' ? t.type : null };
    }
    const text = hint.slice(1);
    if (!text.includes('.') && text !== 'this') {
      // A declared name: its type as written, also when the type lies outside the repository (`Type`, `Reader`).
      for (const s of this.scopes(file, scope)) {
        const b = file.bindings.get(s)?.get(text);
        if (b && b[4] === undefined) {
          const t = this.typeName(file, s === '' ? null : s, b[3]);
          return { name: lastSegment(b[3]), type: t.t === 'static' ? t.type : null };
        }
        if (b) break;
      }
    }
    const e = this.expression(file, scope, text, 1);
    return e.t === 'instance' ? { name: e.type.name, type: e.type } : null;
  }

  /** How an argument of a known type fits a parameter type as written. */
  private argumentFits(arg: ArgType | null, paramText: string): 'exact' | 'maybe' | 'no' {
    if (arg === null) return 'maybe';
    if (paramText.endsWith('[]') || paramText.endsWith('...')) return 'maybe';
    const param = lastSegment(stripGenericsOf(paramText));
    if (arg.name === param) return 'exact';
    const argPrim = PRIMITIVES.has(arg.name);
    const paramPrim = PRIMITIVES.has(param);
    if (argPrim || paramPrim) {
      if (BOXES.get(arg.name) === param || BOXES.get(param) === arg.name) return 'maybe';
      if (argPrim && paramPrim) return WIDENS.get(arg.name)?.includes(param) ? 'maybe' : 'no';
      if (argPrim)
        return param === 'Object' || (param === 'Number' && arg.name !== 'boolean' && arg.name !== 'char')
          ? 'maybe'
          : 'no';
      return BOXES.has(arg.name) ? 'maybe' : 'no';
    }
    if (arg.type === null) return 'maybe';
    // A repository type: its hierarchy, as far as the repository declares it.
    const seen = new Set<string>();
    const queue = [arg.type];
    let open = false;
    while (queue.length > 0 && seen.size < 64) {
      const t = queue.shift()!;
      if (seen.has(t.id)) continue;
      seen.add(t.id);
      if (t !== arg.type && t.name === param) return 'exact';
      const s = this.supertypes(t);
      if (s.open) open = true;
      queue.push(...s.types);
    }
    return open || param === 'Object' || /^[A-Z][A-Z0-9]?$/.test(param) ? 'maybe' : 'no';
  }

  /** Picks among same-named members: by arity where the language has overloads. */
  private pick(ms: Member[], args: number | null | undefined, overloads: boolean): Member | 'ambiguous' | null {
    if (ms.length === 0) return null;
    if (ms.length === 1) return ms[0]!;
    if (overloads && args !== undefined && args !== null) {
      const fit = ms.filter((m) => m.def.arity === undefined || m.def.arity === args);
      if (fit.length === 1) return fit[0]!;
      if (fit.length === 0) return null;
      return (this.callArgs && this.byArgumentTypes(fit, this.callArgs)) ?? 'ambiguous';
    }
    // Redefinitions (a Python property's getter and setter, conditional definitions): the first.
    return ms[0]!;
  }

  /** A member of the type itself. */
  private ownMember(type: TypeEntity, name: string, args: number | null | undefined, overloads: boolean) {
    return this.pick(this.membersOf(type).get(name) ?? [], args, overloads);
  }

  /** A member found by walking the supertypes breadth first (the type itself excluded). */
  private lookupInSupertypes(
    type: TypeEntity,
    name: string,
    args: number | null | undefined,
    overloads: boolean,
  ): Member | 'ambiguous' | 'open' | null {
    const seen = new Set<string>([type.id]);
    let level = [type];
    let open = false;
    for (let depth = 0; depth < MAX_DEPTH && level.length > 0; depth++) {
      const next: TypeEntity[] = [];
      for (const t of level) {
        const s = this.supertypes(t);
        if (s.open) open = true;
        for (const sup of s.types) {
          if (seen.has(sup.id)) continue;
          seen.add(sup.id);
          const hit = this.ownMember(sup, name, args, overloads);
          if (hit) return hit;
          next.push(sup);
        }
      }
      level = next;
    }
    return open ? 'open' : null;
  }

  /** Member lookup: the type, then its supertypes. */
  private member(
    type: TypeEntity,
    name: string,
    args: number | null | undefined,
    overloads: boolean,
    own: Provenance,
  ): { m: Member; prov: Provenance } | 'ambiguous' | 'open' | null {
    const hit = this.ownMember(type, name, args, overloads);
    if (hit === 'ambiguous') return hit;
    if (hit) return { m: hit, prov: own };
    const up = this.lookupInSupertypes(type, name, args, overloads);
    if (up === null || up === 'ambiguous' || up === 'open') return up;
    return { m: up, prov: own === 'self' || own === 'receiver_type' ? 'hierarchy' : own };
  }

  // -------------------------------------------------------------------------------------------------------------
  // Names
  // -------------------------------------------------------------------------------------------------------------

  /** The chain of scope keys from `key` outward ('' = top level last); made once per key (callers only read it). */
  private scopes(file: FileCtx, key: string | null): readonly string[] {
    let out = file.scopeChains.get(key);
    if (out) return out;
    out = [];
    for (let k = key; k !== null;) {
      out.push(k);
      k = file.byKey.get(k)?.container ?? null;
    }
    out.push('');
    file.scopeChains.set(key, out);
    return out;
  }

  /** The class-like definition enclosing a scope (self/this), or null. */
  private enclosingType(file: FileCtx, key: string): TypeEntity | null {
    for (let k: string | null = key; k !== null;) {
      const d = file.byKey.get(k);
      if (!d) return null;
      if (TYPE_KINDS.has(d.symbol_kind)) return this.typeOf(file, d);
      if (file.pkg !== null && d.container === null && d.container_name !== undefined && d.symbol_kind === 'method')
        return this.pkgType(file.pkg, d.container_name);
      k = d.container;
    }
    return null;
  }

  private entityOfDef(m: Member, prov: Provenance): Entity {
    if (TYPE_KINDS.has(m.def.symbol_kind)) return { t: 'static', type: this.typeOf(m.file, m.def), prov };
    return { t: 'def', m, prov };
  }

  /** A bare name in a scope of a file: lexical scope, locals, imports, package, wildcard imports, builtins. */
  /**
   * A bare name in a scope. `asReceiver`: the name is the head of a receiver (`headers.remove()`); in Java such a name
   * is a variable, a field or a type, never a method (methods and fields live in separate namespaces), so a member
   * method of the same name is skipped and the field (own or inherited) taken.
   */
  private bareName(file: FileCtx, scope: string | null, name: string, asReceiver = false): Entity {
    const valueOnly = asReceiver && file.language === 'java';
    for (const s of this.scopes(file, scope)) {
      const d = s === '' ? undefined : file.byKey.get(s);
      if (
        d &&
        file.lang.bareMembers &&
        file.pkg !== null &&
        d.container === null &&
        d.container_name !== undefined &&
        d.symbol_kind === 'method'
      ) {
        // An out-of-line member (C++ `void Foo::bar() { baz(); }`): implicit `this` is its class.
        const t = this.pkgType(file.pkg, d.container_name);
        const hit = t ? this.member(t, name, undefined, false, 'self') : null;
        if (hit && hit !== 'ambiguous' && hit !== 'open') return this.entityOfDef(hit.m, hit.prov);
      }
      if (d && TYPE_KINDS.has(d.symbol_kind)) {
        if (file.lang.bareMembers) {
          if (valueOnly) {
            const field = this.field(this.typeOf(file, d), name);
            if (field) return field;
          }
          const hit = this.member(this.typeOf(file, d), name, undefined, false, 'self');
          if (hit && hit !== 'ambiguous' && hit !== 'open' && !(valueOnly && FUNCTION_KINDS.has(hit.m.def.symbol_kind)))
            return this.entityOfDef(hit.m, hit.prov);
          const field = file.bindings.get(s)?.get(name);
          if (field) return this.bindingEntity(file, s, field);
        }
        continue;
      }
      const def = firstDef(file.children.get(s)?.get(name), s !== '');
      if (def) return this.entityOfDef({ file, def }, 'scope');
      if (s !== '') {
        const b = file.bindings.get(s)?.get(name);
        if (b) return this.bindingEntity(file, s, b);
        // A local of the definition's own name is the name it is bound to (`const f = () => f()`: the binding's
        // name lies in the definition's extent), so the lookup goes on outward and finds the definition itself.
        if (file.locals.get(s)?.has(name) && d?.name !== name) return DYNAMIC;
      }
    }
    if (this.namespacesOf(file).size > 0) {
      // Inside a namespace, its members and nested namespaces by their bare names, innermost namespace first.
      for (let ns = this.namespaceOf(file, scope); ns !== ''; ns = ns.slice(0, Math.max(0, ns.lastIndexOf('.')))) {
        const e = this.inNamespace(file, `${ns}.${name}`);
        if (e.t !== 'unknown')
          return e.t === 'def' || e.t === 'static' || e.t === 'module' ? { ...e, prov: 'scope' } : e;
      }
      if (this.namespacesOf(file).has(name)) return { t: 'module', files: [file], pkg: null, prov: 'scope', ns: name };
    }
    const imp = file.imports.get(name);
    if (imp) return this.importEntity(file, imp, 0);
    if (file.pkg !== null && file.lang.packageTopLevel !== false) {
      const hit = this.inPackage(file.pkg, name, file);
      if (hit) return hit;
      if (file.lang.packageByName) {
        // Enclosing namespaces (C#: code in a.b.c sees a.b and a).
        for (let p = file.pkg; p.includes('.');) {
          p = p.slice(0, p.lastIndexOf('.'));
          const up = this.inPackage(p, name, null);
          if (up) return up;
        }
      }
    }
    for (const star of file.stars) {
      const e = this.starLookup(file, star, name);
      if (e) return e;
    }
    const top = file.bindings.get('')?.get(name);
    if (top) return this.bindingEntity(file, '', top);
    if (file.lang.builtins.has(name)) return EXTERNAL;
    return UNKNOWN;
  }

  /** A top-level name of a package (Go: any file of it; Java: its types). */
  private inPackage(pkg: string, name: string, except: FileCtx | null): Entity | null {
    const defs = this.pkgTop.get(pkg)?.get(name);
    if (defs) {
      const m = defs.find((x) => x.file !== except);
      if (m) return this.entityOfDef(m, 'scope');
    }
    const t = this.pkgType(pkg, name);
    if (t) return { t: 'static', type: t, prov: 'scope' };
    const b = this.pkgBindings.get(pkg)?.get(name);
    if (b) return this.bindingEntity(b.file, '', b.b);
    return null;
  }

  private readonly bindingCache = new Map<BindingFact, Entity>();

  /** What a typed name denotes (an instance of its type); remembered per binding, cycles (`x = x.next()`) dynamic. */
  private bindingEntity(file: FileCtx, scope: string, b: BindingFact): Entity {
    const hit = this.bindingCache.get(b);
    if (hit) return hit;
    this.bindingCache.set(b, DYNAMIC);
    const e = this.bindingEntityUncached(file, scope, b);
    this.bindingCache.set(b, e);
    return e;
  }

  private bindingEntityUncached(file: FileCtx, scope: string, b: BindingFact): Entity {
    if (b[4] === 'c') {
      const callee = this.expression(file, scope === '' ? null : scope, b[3], 1);
      if (callee.t === 'static') return { t: 'instance', type: callee.type, prov: 'receiver_type' };
      if (callee.t === 'def' && callee.m.def.returns) {
        const r = this.typeName(callee.m.file, callee.m.def.container ?? callee.m.def.key, callee.m.def.returns);
        if (r.t === 'static') return { t: 'instance', type: r.type, prov: 'receiver_type' };
        if (r.t === 'external') return EXTERNAL;
      }
      if (callee.t === 'external') return EXTERNAL;
      return DYNAMIC;
    }
    const e = this.typeName(file, scope === '' ? null : scope, b[3]);
    if (e.t === 'static') return { t: 'instance', type: e.type, prov: 'receiver_type' };
    if (e.t === 'external') return EXTERNAL;
    return DYNAMIC;
  }

  /** A type as written (`Foo`, `pkg.Foo`, `a.b.Foo`) in a scope of a file: the type it names. */
  private typeName(file: FileCtx, scope: string | null, text: string): Entity {
    let byScope = this.typeNameCache.get(file.path);
    if (!byScope) this.typeNameCache.set(file.path, (byScope = new Map<string, Map<string, Entity>>()));
    let byText = byScope.get(scope ?? '');
    if (!byText) byScope.set(scope ?? '', (byText = new Map<string, Entity>()));
    const hit = byText.get(text);
    if (hit) return hit;
    byText.set(text, UNKNOWN);
    const e = this.expression(file, scope, text, 0);
    const out: Entity =
      e.t === 'static' || e.t === 'external' || e.t === 'ambiguous'
        ? e
        : e.t === 'instance'
          ? { t: 'static', type: e.type, prov: e.prov }
          : UNKNOWN;
    byText.set(text, out);
    return out;
  }

  /** An import binding: the module, or the name it imports. */
  private importEntity(file: FileCtx, b: ImportBindingFact, depth: number): Entity {
    const targets = file.targets.get(specKey(b.spec, b.spec_kind));
    if (!targets || targets.length === 0) return EXTERNAL;
    const files = targets.map((t) => this.files.get(t)).filter((f): f is FileCtx => f !== undefined);
    if (files.length === 0) return EXTERNAL;
    const first = files[0]!;
    if (file.language === 'go') {
      return { t: 'module', files, pkg: first.pkg, prov: 'qualified' };
    }
    if (b.imported === null) {
      if (file.language === 'java') return this.lookupInModule(first, b.spec.slice(b.spec.lastIndexOf('.') + 1), depth);
      return { t: 'module', files, pkg: null, prov: 'qualified' };
    }
    if (file.language === 'python' && b.spec_kind === 'from') {
      // `from m import x` names module m.x when the file-level resolution found that module (it looks for one first).
      const p = first.path;
      const isModule = p.endsWith('/__init__.py')
        ? p.slice(0, -'/__init__.py'.length).endsWith(`/${b.imported}`) || p === `${b.imported}/__init__.py`
        : stemOf(p) === b.imported;
      if (isModule) return { t: 'module', files, pkg: null, prov: 'import' };
    }
    const e = this.lookupInModule(first, b.imported, depth);
    if (e.t === 'def' || e.t === 'static' || e.t === 'module') return { ...e, prov: 'import' };
    if (e.t === 'unknown' && file.lang.modulesAreFiles && moduleNameOf(first.path) === b.imported)
      return { t: 'module', files, pkg: null, prov: 'import' };
    // A name of a repository module that is no definition there (`export const assign = Object.assign`): a value
    // of that module, never a same-named function elsewhere.
    if (e.t === 'unknown' && file.family === 'ecmascript') return DYNAMIC;
    return e;
  }

  /** A name exported by a file (module): its top-level definitions, its imports and re-exports. */
  private lookupInModule(file: FileCtx, name: string, depth: number): Entity {
    if (depth > MAX_DEPTH) return UNKNOWN;
    if (file.pkg !== null && file.language === 'go') {
      return this.inPackage(file.pkg, name, null) ?? UNKNOWN;
    }
    const tops = file.children
      .get('')
      ?.get(name)
      ?.filter((d) => d.symbol_kind !== 'method');
    if (tops && tops.length > 0) return this.entityOfDef({ file, def: tops[0]! }, 'qualified');
    if (name === 'default' && file.defaultExport !== undefined && file.defaultExport !== 'default')
      return this.lookupInModule(file, file.defaultExport, depth + 1);
    if (this.namespacesOf(file).has(name))
      return { t: 'module', files: [file], pkg: null, prov: 'qualified', ns: name };
    if (file.language === 'java') {
      // A static member of the file's class(es).
      for (const d of [...(file.children.get('')?.values() ?? [])].flat()) {
        if (!TYPE_KINDS.has(d.symbol_kind)) continue;
        const ms = file.children.get(d.key)?.get(name);
        if (ms && ms.length > 0) return this.entityOfDef({ file, def: ms[0]! }, 'qualified');
      }
    }
    const imp = file.imports.get(name);
    if (imp) return this.importEntity(file, imp, depth + 1);
    for (const r of file.reexports) {
      if (r.local === name && r.imported !== null && r.imported !== '*') {
        const targets = file.targets.get(specKey(r.spec, r.spec_kind)) ?? [];
        const target = targets.length > 0 ? this.files.get(targets[0]!) : undefined;
        if (!target) return EXTERNAL;
        return this.lookupInModule(target, r.imported, depth + 1);
      }
    }
    for (const r of [...file.reexports.filter((x) => x.imported === '*'), ...file.stars]) {
      const e = this.starLookup(file, r, name, depth + 1);
      if (e) return e;
    }
    const top = file.bindings.get('')?.get(name);
    if (top) return this.bindingEntity(file, '', top);
    if (file.language === 'python' && file.path.endsWith('__init__.py')) {
      // A submodule of the package: `import pkg; pkg.sub.f()`.
      const dir = dirOf(file.path);
      const sub =
        this.files.get(`${dir === '' ? '' : dir + '/'}${name}.py`) ?? this.files.get(`${dir}/${name}/__init__.py`);
      if (sub) return { t: 'module', files: [sub], pkg: null, prov: 'qualified' };
    }
    return UNKNOWN;
  }

  private readonly namespaceCache = new Map<FileCtx, Set<string>>();

  /**
   * TypeScript namespaces of a file (`namespace util { export function f() {} }`): a namespace is no symbol, so its
   * members are top-level definitions whose key carries its chain (`util.f:function`, `a.b.g:function`). The chains,
   * `a` and `a.b`; empty for other languages.
   */
  private namespacesOf(file: FileCtx): Set<string> {
    let out = this.namespaceCache.get(file);
    if (out) return out;
    out = new Set();
    if (file.family === 'ecmascript') {
      for (const d of file.defs) {
        if (d.container !== null || d.container_name === undefined) continue;
        const chain = d.key.slice(0, d.key.indexOf(':'));
        for (let at = chain.indexOf('.'); at !== -1; at = chain.indexOf('.', at + 1)) out.add(chain.slice(0, at));
      }
    }
    this.namespaceCache.set(file, out);
    return out;
  }

  /** The chain of the namespace a scope lies in ('' outside any). */
  private namespaceOf(file: FileCtx, scope: string | null): string {
    let d = scope === null ? undefined : file.byKey.get(scope);
    while (d && d.container !== null) d = file.byKey.get(d.container);
    if (!d || d.container_name === undefined) return '';
    const chain = d.key.slice(0, d.key.indexOf(':'));
    return chain.slice(0, Math.max(0, chain.lastIndexOf('.')));
  }

  /** A member of a namespace by its chain (`util.assertNever`): the definition, or a nested namespace. */
  private inNamespace(file: FileCtx, chain: string): Entity {
    const name = chain.slice(chain.lastIndexOf('.') + 1);
    const def = file.children
      .get('')
      ?.get(name)
      ?.find((d) => d.key.slice(0, d.key.indexOf(':')) === chain);
    if (def) return this.entityOfDef({ file, def }, 'qualified');
    if (this.namespacesOf(file).has(chain))
      return { t: 'module', files: [file], pkg: null, prov: 'qualified', ns: chain };
    return UNKNOWN;
  }

  private starLookup(file: FileCtx, star: ImportBindingFact, name: string, depth = 0): Entity | null {
    if (file.lang.packageByName) {
      // The package by its name (C# `using A.B;`, Kotlin `import a.b.*`), whichever folders hold it.
      const e = this.inPackage(`\0${star.spec}`, name, null);
      if (e) return e;
    }
    const targets = file.targets.get(specKey(star.spec, star.spec_kind)) ?? [];
    for (const t of targets) {
      const target = this.files.get(t);
      if (!target) continue;
      if (star.spec_kind === 'wildcard' && target.pkg !== null) {
        const e = this.inPackage(target.pkg, name, null);
        if (e) return e;
        continue;
      }
      const e = this.lookupInModule(target, name, depth + 1);
      if (e.t !== 'unknown') return e;
    }
    return null;
  }

  /**
   * An expression as written (a receiver or qualifier: `x`, `this`, `self.a.b`, `pkg.Type`, `mod.sub`, `f()`): what
   * it denotes. `depth` bounds the recursion through calls and bindings.
   */
  private expression(file: FileCtx, scope: string | null, text: string, depth: number): Entity {
    if (depth > MAX_DEPTH) return UNKNOWN;
    const lang = file.lang;
    // Python: `import a.b` binds the dotted name.
    if (text.includes('.')) {
      const whole = file.imports.get(text);
      if (whole) return this.importEntity(file, whole, 0);
    }
    const parts = this.split(text);
    if (parts === null) return DYNAMIC;
    const [head, ...rest] = parts;
    let e: Entity;
    if (head!.call && !(head!.name === 'super' && scope !== null)) {
      const callee = this.expression(file, scope, head!.name, depth + 1);
      e = this.callResult(callee);
    } else if (lang.selfNames.includes(head!.name) && scope !== null) {
      const t = this.enclosingType(file, scope);
      e = t ? { t: 'instance', type: t, prov: 'self' } : DYNAMIC;
    } else if ((head!.name === 'super' || lang.superNames?.includes(head!.name)) && scope !== null) {
      const t = this.enclosingType(file, scope);
      e = t ? { t: 'instance', type: t, prov: 'hierarchy' } : DYNAMIC;
      if (t) {
        const sups = this.supertypes(t);
        if (sups.types.length === 1 && !sups.open) e = { t: 'instance', type: sups.types[0]!, prov: 'hierarchy' };
        else if (sups.types.length === 0) e = sups.open ? EXTERNAL : DYNAMIC;
        else e = DYNAMIC;
      }
    } else {
      e = this.receiverName(file, scope, head!.name);
      if (e.t === 'unknown' && lang.packageByName && !parts.some((p) => p.call)) {
        // A package written out (`\A\B\f()`, `a.b.C.m()`): the longest prefix that names a package of the tree.
        const names = parts.map((p) => p.name);
        for (let i = names.length; i >= 1; i--) {
          const pkg = `\0${names.slice(0, i).join('.')}`;
          const files = this.packages.get(pkg);
          if (!files) continue;
          let x: Entity = { t: 'module', files, pkg, prov: 'qualified' };
          for (const n of names.slice(i)) {
            x = this.memberOf(file, x, n, depth);
            if (x.t === 'external' || x.t === 'dynamic' || x.t === 'unknown' || x.t === 'ambiguous') break;
          }
          return x;
        }
      }
      if (e.t === 'unknown' && lang.namespaceQualifiers && rest.length > 0 && !head!.call) {
        // A namespace the resolver does not model (C++ `ns::T`): the rest of the path.
        return this.expression(file, scope, text.slice(text.indexOf('.') + 1), depth + 1);
      }
    }
    for (const p of rest) {
      e = this.memberOf(file, e, p.name, depth);
      if (p.call) e = this.callResult(e);
      if (e.t === 'external' || e.t === 'dynamic' || e.t === 'unknown' || e.t === 'ambiguous') return e;
    }
    return e;
  }

  private readonly splitCache = new Map<string, Array<{ name: string; call: boolean }> | null>();

  /** splitMembers, once per text (the parts are only read). */
  private split(text: string): Array<{ name: string; call: boolean }> | null {
    let parts = this.splitCache.get(text);
    if (parts === undefined) this.splitCache.set(text, (parts = splitMembers(text)));
    return parts;
  }

  /** A receiver's head name: a Go receiver is `self`; otherwise a bare name. */
  private receiverName(file: FileCtx, scope: string | null, name: string): Entity {
    if (scope !== null && file.language === 'go') {
      for (const s of this.scopes(file, scope)) {
        const d = s === '' ? undefined : file.byKey.get(s);
        if (d?.self_name === name && d.container_name !== undefined && file.pkg !== null) {
          const t = this.pkgType(file.pkg, d.container_name);
          if (t) return { t: 'instance', type: t, prov: 'self' };
        }
      }
    }
    const e = this.bareName(file, scope, name, true);
    if (e.t === 'unknown' && file.language === 'go') return this.goPackageName(file, name) ?? UNKNOWN;
    return e;
  }

  /**
   * Go: a package name bound by an import without alias (the target's package clause, or the path's last part); the
   * first import binding the name wins. The names of a file are read once.
   */
  private goPackageName(file: FileCtx, name: string): Entity | null {
    if (!file.goNames) {
      file.goNames = new Map<string, Entity>();
      for (const b of file.goImports) {
        const targets = file.targets.get(specKey(b.spec, b.spec_kind)) ?? [];
        const target = targets.length > 0 ? this.files.get(targets[0]!) : undefined;
        const bound = target ? (target.pkg?.slice(target.pkg.indexOf('\0') + 1) ?? '') : goExternalName(b.spec);
        if (file.goNames.has(bound)) continue;
        file.goNames.set(
          bound,
          target ? { t: 'module', files: [target], pkg: target.pkg, prov: 'qualified' } : EXTERNAL,
        );
      }
    }
    return file.goNames.get(name) ?? null;
  }

  /** The result of calling what `callee` denotes: a class gives an instance, a function its declared result. */
  private callResult(callee: Entity): Entity {
    if (callee.t === 'static') return { t: 'instance', type: callee.type, prov: 'receiver_type' };
    if (callee.t === 'def') {
      const r = callee.m.def.returns;
      if (!r) return DYNAMIC;
      const e = this.typeName(callee.m.file, callee.m.def.container ?? callee.m.def.key, r);
      if (e.t === 'static') return { t: 'instance', type: e.type, prov: 'receiver_type' };
      return e.t === 'external' ? EXTERNAL : DYNAMIC;
    }
    if (callee.t === 'external') return EXTERNAL;
    return DYNAMIC;
  }

  /** `e.name`: a module's name, a type's static member or nested type, an instance's field or method. */
  private memberOf(file: FileCtx, e: Entity, name: string, depth: number): Entity {
    switch (e.t) {
      case 'module': {
        if (e.ns !== undefined) return this.inNamespace(e.files[0]!, `${e.ns}.${name}`);
        if (e.pkg !== null) {
          const x = this.inPackage(e.pkg, name, null) ?? UNKNOWN;
          return x.t === 'def' || x.t === 'static' ? { ...x, prov: 'qualified' } : x;
        }
        const x = this.lookupInModule(e.files[0]!, name, depth + 1);
        if (x.t === 'def' || x.t === 'static' || x.t === 'module') return { ...x, prov: 'qualified' };
        return x;
      }
      case 'static':
      case 'instance': {
        if (name === 'constructor' && file.lang.constructsWithNew) return DYNAMIC;
        const hit = this.member(e.type, name, undefined, false, e.t === 'static' ? 'qualified' : e.prov);
        if (hit && hit !== 'ambiguous' && hit !== 'open') return this.entityOfDef(hit.m, hit.prov);
        const field = this.field(e.type, name);
        if (field) return field;
        if (hit === 'open') return EXTERNAL;
        return UNKNOWN;
      }
      case 'def':
        return DYNAMIC;
      default:
        return e;
    }
  }

  /** A field's type: a binding of the class (or a supertype's). */
  private field(type: TypeEntity, name: string): Entity | null {
    const seen = new Set<string>();
    const queue = [type];
    while (queue.length > 0) {
      const t = queue.shift()!;
      if (seen.has(t.id) || seen.size > 32) continue;
      seen.add(t.id);
      if (t.file && t.def) {
        const b = t.file.bindings.get(t.def.key)?.get(name);
        if (b) {
          const e = this.bindingEntity(t.file, t.def.key, b);
          if (e.t === 'instance') return { ...e, prov: 'receiver_type' };
          return e;
        }
      }
      queue.push(...this.supertypes(t).types);
    }
    return null;
  }

  // -------------------------------------------------------------------------------------------------------------
  // Uses
  // -------------------------------------------------------------------------------------------------------------

  private use(file: FileCtx, u: UseFact, st: LanguageStats): void {
    const from = file.defs[u[1]]?.key;
    if (from === undefined) return;
    const argTypes = u[6];
    // The argument types, for a choice among overloads of one arity (byArgumentTypes), while this use resolves.
    this.callArgs = argTypes && argTypes.length === u[5] ? { file, scope: from, hints: argTypes, types: null } : null;
    try {
      this.useResolved(file, u, from, st);
    } finally {
      this.callArgs = null;
    }
  }

  private useResolved(file: FileCtx, u: UseFact, from: string, st: LanguageStats): void {
    const [code, , line, name] = u;
    const receiver = u[4] ?? null;
    const args = u[5];
    const text = receiver === null ? name : `${receiver}.${name}`;
    if (code === 'd') {
      this.miss(file, from, 'call', name, line, 'dynamic', st);
      return;
    }
    const isCall = code === 'c' || code === 'n';
    let target: Entity;
    if (
      code === 'c' &&
      (receiver === 'super' || receiver === 'this') &&
      name === (file.lang.constructorName ?? 'constructor')
    ) {
      // An explicit constructor call: `super(...)`, `this(...)`.
      const recv = this.expression(file, from, receiver, 0);
      if (recv.t !== 'instance') {
        if (recv.t === 'external') st.external++;
        return;
      }
      const ctor = this.constructorOf(recv.type, args) ?? this.ownMember(recv.type, name, args, file.lang.overloads);
      if (ctor && ctor !== 'ambiguous') this.edge('calls', file, from, ctor, recv.prov, line, st);
      else if (ctor === 'ambiguous') this.miss(file, from, 'call', text, line, 'ambiguous', st);
      return;
    }
    if (receiver === null) {
      target = this.bareName(file, from, name);
      if (isCall && target.t === 'def' && file.lang.overloads && args !== undefined) {
        // A bare call of an overloaded member: the overload by arity, as for `recv.name(...)`.
        const m = target.m;
        const same = m.def.container === null ? [] : (m.file.children.get(m.def.container)?.get(m.def.name) ?? []);
        if (same.length > 1) {
          const p = this.pick(
            same.map((def) => ({ file: m.file, def })),
            args,
            true,
          );
          target = p === null ? target : p === 'ambiguous' ? AMBIGUOUS : { ...target, m: p };
        }
      }
    } else {
      const recv = this.expression(file, from, receiver, 0);
      if (recv.t === 'instance' || recv.t === 'static' || recv.t === 'module') {
        target = this.memberCall(file, recv, name, args, isCall);
      } else if (recv.t === 'unknown' && file.lang.namespaceQualifiers) {
        target = this.unqualified(file, from, name);
      } else target = recv;
    }
    switch (target.t) {
      case 'def':
      case 'static': {
        const m = target.t === 'def' ? target.m : { file: target.type.file, def: target.type.def };
        if (!m.file || !m.def) {
          if (isCall) st.external++;
          return;
        }
        let to: Member = m as Member;
        if (
          isCall &&
          target.t === 'static' &&
          file.lang.constructionTarget === 'constructor' &&
          (code === 'n' || !file.lang.constructsWithNew)
        ) {
          const ctor = this.constructorOf(target.type, args);
          if (ctor) to = ctor;
        }
        if (!isCall) {
          const ok = code === 't' ? TYPE_KINDS.has(to.def.symbol_kind) : FUNCTION_KINDS.has(to.def.symbol_kind);
          if (!ok) return;
        }
        this.edge(isCall ? 'calls' : 'references', file, from, to, target.prov, line, st);
        return;
      }
      case 'external':
        if (isCall) st.external++;
        return;
      case 'module':
      case 'instance':
        return;
      case 'dynamic':
        // A bare name the code declares (a parameter, a local, a value a repository module exports) is that
        // declaration, a function value: not guessed by unique name. A receiver of unknown type may be.
        if (isCall && receiver === null) this.miss(file, from, 'call', text, line, 'dynamic', st);
        else if (isCall) this.fallback(file, from, name, receiver, line, text, 'dynamic_receiver', st);
        return;
      case 'ambiguous':
        if (isCall) this.miss(file, from, 'call', text, line, 'ambiguous', st);
        return;
      case 'unknown':
        if (isCall) this.fallback(file, from, name, receiver, line, text, 'unknown_name', st);
        return;
    }
  }

  /**
   * A qualifier that names nothing the resolver models (a C++ namespace, which is no symbol; expression() already
   * drops such leading segments when a known name follows): the name alone. `geo::square` is `square` in scope,
   * with provenance `qualified`.
   */
  private unqualified(file: FileCtx, from: string, name: string): Entity {
    const e = this.bareName(file, from, name);
    if (e.t === 'def' || e.t === 'static') return { ...e, prov: e.prov === 'scope' ? 'qualified' : e.prov };
    return e.t === 'unknown' ? UNKNOWN : e;
  }

  /** `recv.name(...)` once the receiver is known. */
  private memberCall(
    file: FileCtx,
    recv: Entity & { t: 'instance' | 'static' | 'module' },
    name: string,
    args: number | undefined,
    isCall: boolean,
  ): Entity {
    if (recv.t === 'module') {
      const e = this.memberOf(file, recv, name, 0);
      return e.t === 'unknown' ? UNKNOWN : e;
    }
    // `x.constructor` (JavaScript, TypeScript) is the object's class as a value (`this.constructor.create()`, typed
    // `Function`), never the constructor method: constructors are reached by `new` and `super(...)` only.
    if (name === 'constructor' && file.lang.constructsWithNew) return DYNAMIC;
    const own: Provenance = recv.t === 'static' ? 'qualified' : recv.prov;
    const hit = this.member(recv.type, name, args, file.lang.overloads, own);
    if (hit === 'ambiguous') return AMBIGUOUS;
    if (hit === 'open') return EXTERNAL;
    if (hit) {
      // A nested type (`new a.B()`, Ruby `A::B.new`): the type, so that a construction reaches its constructor.
      if (TYPE_KINDS.has(hit.m.def.symbol_kind)) return this.entityOfDef(hit.m, hit.prov);
      if (isCall || FUNCTION_KINDS.has(hit.m.def.symbol_kind)) return { t: 'def', m: hit.m, prov: hit.prov };
      return this.entityOfDef(hit.m, hit.prov);
    }
    // A field holding a function, or a nested type.
    const field = this.field(recv.type, name);
    if (field) return field.t === 'instance' ? DYNAMIC : field;
    return UNKNOWN;
  }

  private constructorOf(type: TypeEntity, args: number | undefined): Member | null {
    if (!type.file || !type.def) return null;
    // Every member list of the type (its other parts too, for open classes), constructors only.
    const ctors = [...this.membersOf(type).values()].flat().filter((m) => m.def.symbol_kind === 'constructor');
    const p = this.pick(ctors, args ?? null, true);
    return p === 'ambiguous' ? null : p;
  }

  /**
   * The unique-name fallback: the only function/method of that name in the repository (same language family),
   * with confidence 0.5; several give `ambiguous`, none an external call.
   */
  private fallback(
    file: FileCtx,
    from: string,
    name: string,
    receiver: string | null,
    line: number,
    text: string,
    reason: UnresolvedReason,
    st: LanguageStats,
  ): void {
    const wantMethod = receiver !== null;
    const all = this.byName.get(file.family)?.get(name) ?? [];
    if (all.length === 0) {
      // Nothing of that name in the repository: the callee lies outside it.
      st.external++;
      return;
    }
    if (wantMethod && (file.lang.memberFallback === false || file.lang.commonMembers.has(name))) {
      this.miss(file, from, 'call', text, line, reason, st);
      return;
    }
    const cands = all.filter((m) =>
      wantMethod
        ? m.def.symbol_kind === 'method'
        : m.def.symbol_kind === 'function' || TYPE_KINDS.has(m.def.symbol_kind),
    );
    if (cands.length === 1) {
      this.edge('calls', file, from, cands[0]!, 'unique_name', line, st);
      return;
    }
    this.miss(file, from, 'call', text, line, cands.length > 1 ? 'ambiguous' : reason, st);
  }
}

/** The arguments of the call being resolved (Resolver.callArgs). */
interface CallArgs {
  file: FileCtx;
  scope: string;
  hints: string[];
  types: Array<ArgType | null> | null;
}

/** An argument's type: its name (last segment) and the repository type when it is one. */
interface ArgType {
  name: string;
  type: TypeEntity | null;
}

const PRIMITIVES = new Set(['int', 'long', 'short', 'byte', 'char', 'boolean', 'float', 'double']);
const BOXES = new Map([
  ['Integer', 'int'],
  ['Long', 'long'],
  ['Short', 'short'],
  ['Byte', 'byte'],
  ['Character', 'char'],
  ['Boolean', 'boolean'],
  ['Float', 'float'],
  ['Double', 'double'],
  ['int', 'Integer'],
  ['long', 'Long'],
  ['short', 'Short'],
  ['byte', 'Byte'],
  ['char', 'Character'],
  ['boolean', 'Boolean'],
  ['float', 'Float'],
  ['double', 'Double'],
]);
/** Java's widening primitive conversions. */
const WIDENS = new Map([
  ['byte', ['short', 'int', 'long', 'float', 'double']],
  ['short', ['int', 'long', 'float', 'double']],
  ['char', ['int', 'long', 'float', 'double']],
  ['int', ['long', 'float', 'double']],
  ['long', ['float', 'double']],
  ['float', ['double']],
]);

function lastSegment(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

function stripGenericsOf(text: string): string {
  const at = text.indexOf('<');
  return at === -1 ? text : text.slice(0, at);
}

/** The parameter types an overload's key carries (`Foo.bar:method~(int,List<T>)`), or null. */
function paramTypesOfKey(key: string): string[] | null {
  const m = /~\((.*)\)(~\d+)?$/.exec(key);
  if (!m) return null;
  return m[1] === '' ? [] : splitTopLevel(m[1]!);
}

/** A pending edge as the output gives it: its sites' distinct lines, a count for the labels that have one. */
function finalEdge(e: PendingEdge): SymbolEdge {
  return {
    label: e.label,
    from: symbolRef(e.fromPath, e.fromKey),
    to: symbolRef(e.toPath, e.toKey),
    provenance: e.provenance,
    confidence: e.confidence,
    lines: distinctSorted(e.sites),
    count: e.label === 'calls' || e.label === 'references' ? e.count : 1,
  };
}

/** Edges in the output's order: by label, from, to. */
function sortEdges(edges: SymbolEdge[]): SymbolEdge[] {
  return edges.sort(
    (a, b) => comparePaths(a.label, b.label) || comparePaths(a.from, b.from) || comparePaths(a.to, b.to),
  );
}

/** The distinct numbers of a list, ascending (the list is sorted in place). */
function distinctSorted(xs: number[]): number[] {
  if (xs.length < 2) return xs.slice();
  xs.sort((a, b) => a - b);
  const out = [xs[0]!];
  for (let i = 1; i < xs.length; i++) if (xs[i] !== xs[i - 1]) out.push(xs[i]!);
  return out;
}

/** The first of same-named definitions a bare name can reach in a scope (a method only inside a definition). */
function firstDef(defs: readonly DefinitionFact[] | undefined, inside: boolean): DefinitionFact | undefined {
  if (!defs) return undefined;
  for (const d of defs) if (inside || d.symbol_kind !== 'method') return d;
  return undefined;
}

/** `a.b(c).d` -> [{a}, {b, call}, {d}]; null when a part is not a plain name (an index, a literal, a lambda). */
function splitMembers(text: string): Array<{ name: string; call: boolean }> | null {
  const out: Array<{ name: string; call: boolean }> = [];
  let i = 0;
  const t = text.replace(/\?\./g, '.').replace(/!\./g, '.');
  while (i < t.length) {
    const m = /^[\p{L}_$][\p{L}\p{N}_$]*/u.exec(t.slice(i));
    if (!m) return null;
    i += m[0].length;
    let call = false;
    if (t[i] === '(') {
      let depth = 0;
      for (; i < t.length; i++) {
        if (t[i] === '(') depth++;
        else if (t[i] === ')' && --depth === 0) break;
      }
      if (depth !== 0) return null;
      i++;
      call = true;
    }
    out.push({ name: m[0], call });
    if (i === t.length) break;
    if (t[i] !== '.') return null;
    i++;
  }
  return out.length > 0 ? out : null;
}
