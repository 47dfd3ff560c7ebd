import type Parser from 'tree-sitter';
import type { ChunkType, SymbolInfo, SymbolKind } from '../types.ts';
import type { CaptureView } from '../languages/plugin.ts';
import { rowOf } from '../chunk/ast.ts';
import { matchSet, type MatchSet } from '../raw-matches.ts';
import type {
  BindingFact,
  DefinitionFact,
  ImplFact,
  ImportBindingFact,
  SupertypeFact,
  SymbolDefKind,
  SymbolFacts,
  UseFact,
} from './types.ts';
import { SYMBOL_FACTS_VERSION } from './types.ts';
import type { SymbolLanguage } from './plugin.ts';

/** A definition found by the file's definitions query, in source order (outer before inner). */
export interface RawDefinition {
  name: string;
  chunkType: ChunkType;
  nodeType: string;
  startIndex: number;
  endIndex: number;
  /** 0-based row of the node's start and of its name. */
  row: number;
  nameRow: number;
}

const SPEC_KIND: Partial<Record<ChunkType, SymbolKind>> = {
  function: 'function',
  method: 'method',
  class: 'class',
  interface: 'class',
  struct: 'class',
  enum: 'class',
  trait: 'class',
};

/** The spec's kind of a definition of this chunk type, or undefined when it is no Symbol (impl, module, ...). */
export function specKind(chunkType: ChunkType): SymbolKind | undefined {
  return SPEC_KIND[chunkType];
}

const CLASS_NODE_KINDS: Record<string, SymbolDefKind> = {
  record_declaration: 'record',
  object_declaration: 'object',
  object_definition: 'object',
  protocol_declaration: 'protocol',
};

function defKind(d: RawDefinition, constructorName: string | null): SymbolDefKind | null {
  switch (d.chunkType) {
    case 'function':
      return 'function';
    case 'method':
      if (d.nodeType === 'constructor_declaration' || d.nodeType === 'init_declaration') return 'constructor';
      if (constructorName !== null && d.name === constructorName) return 'constructor';
      return 'method';
    case 'class':
      return CLASS_NODE_KINDS[d.nodeType] ?? 'class';
    case 'interface':
      return CLASS_NODE_KINDS[d.nodeType] ?? 'interface';
    case 'struct':
      return 'struct';
    case 'enum':
      return 'enum';
    case 'trait':
      return 'trait';
    case 'module':
      return 'module';
    case 'namespace':
      return 'namespace';
    default:
      return null;
  }
}

const FUNCTION_KINDS = new Set<SymbolDefKind>(['function', 'method', 'constructor']);

interface Src {
  text: string;
  lines: readonly string[];
  starts: Int32Array;
}

/** Per-definition attributes read from the symbols query. */
interface DefExtra {
  receiver?: string;
  selfName?: string;
  returns?: string;
  params?: string;
  static?: boolean;
  supertypes: SupertypeFact[];
  locals?: Set<string>;
}

/**
 * The file's definitions as a tree: parents (the innermost enclosing definition, from the source order: outer
 * definitions come first), kinds, which are Symbols, the attributes the symbols query adds, and lookups by offset.
 */
class DefTree {
  readonly n: number;
  readonly parent: Int32Array;
  readonly kinds: Array<SymbolDefKind | null>;
  readonly isSymbol: boolean[];
  readonly extras: DefExtra[];
  private readonly starts: number[];

  constructor(
    readonly defs: readonly RawDefinition[],
    lang: SymbolLanguage | undefined,
  ) {
    const n = (this.n = defs.length);
    this.parent = new Int32Array(n).fill(-1);
    const stack: number[] = [];
    for (let i = 0; i < n; i++) {
      const d = defs[i]!;
      while (stack.length > 0 && defs[stack[stack.length - 1]!]!.endIndex <= d.startIndex) stack.pop();
      if (stack.length > 0) this.parent[i] = stack[stack.length - 1]!;
      stack.push(i);
    }
    this.kinds = defs.map((d) => defKind(d, lang?.constructorName ?? null));
    this.isSymbol = defs.map((d) => SPEC_KIND[d.chunkType] !== undefined);
    this.extras = defs.map(() => ({ supertypes: [] }));
    this.starts = defs.map((d) => d.startIndex);
  }

  /** The innermost definition around offset `at`, or -1. */
  enclosing(at: number): number {
    let lo = 0;
    let hi = this.n - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.starts[mid]! <= at) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    while (found !== -1 && this.defs[found]!.endIndex <= at) found = this.parent[found]!;
    return found;
  }

  enclosingSymbol(at: number): number {
    let i = this.enclosing(at);
    while (i !== -1 && !this.isSymbol[i]) i = this.parent[i]!;
    return i;
  }

  enclosingFunction(at: number): number {
    let i = this.enclosing(at);
    while (i !== -1 && !(this.isSymbol[i] && FUNCTION_KINDS.has(this.kinds[i]!))) i = this.parent[i]!;
    return i;
  }

  /** The innermost enclosing definition of i that is a Symbol, or -1. */
  symbolParent(i: number): number {
    let p = this.parent[i]!;
    while (p !== -1 && !this.isSymbol[p]) p = this.parent[p]!;
    return p;
  }

  /** The name a definition gives its children's container chain and container_name. */
  containerNameOf(i: number, lang: SymbolLanguage | undefined): string {
    const name = this.defs[i]!.name;
    return !this.isSymbol[i] && lang?.containerName ? lang.containerName(name) : name;
  }
}

/** A use before its enclosing symbol's index is known: the tuple's fields, `def` the raw definition index. */
interface RawUse {
  kind: UseFact[0];
  line: number;
  name: string;
  receiver: string | null;
  args?: number;
  argTypes?: string[];
  def: number;
}

interface RawBinding {
  binding: 'p' | 'l' | 'f';
  name: string;
  type: string;
  via?: 'n' | 'c';
  def: number;
}

/** What the symbols query's matches give, before the definitions' fact indexes are known. */
interface Gathered {
  uses: RawUse[];
  bindings: RawBinding[];
  imports: ImportBindingFact[];
  /** `self.x = x`: the field x takes the type of the enclosing function's typed name (resolved in bindingFacts). */
  aliases: Array<{ name: string; alias: string; def: number }>;
  pkg?: string;
  defaultExport?: string;
}

/** A match's captures: the first capture (its index in the MatchSet) of each name. */
type Captures = Map<string, number>;

/**
 * Reads the symbols query's matches into uses, bindings, imports and definition attributes. One method per kind of
 * pattern (the capture that names it); each returns whether the match was its kind. Per match, the first capture of
 * each name; captures are offsets (raw-matches.ts: no node objects), end offsets and texts read only where used.
 */
class MatchReader {
  readonly out: Gathered = { uses: [], bindings: [], imports: [], aliases: [] };
  /** A decorator's uses belong to what it decorates (Python: the decorator sits outside the definition's node). */
  private readonly decorated: Array<{ start: number; end: number; owner: number }> = [];
  private ms!: MatchSet;

  constructor(
    private readonly tree: DefTree,
    private readonly src: Src,
    private readonly lang: SymbolLanguage,
  ) {}

  readAll(query: Parser.Query, root: Parser.SyntaxNode): Gathered {
    const ms = (this.ms = matchSet(query, root, this.src.text));
    this.findDecorated();
    const caps: Captures = new Map();
    for (let m = 0; m < ms.matchCount; m++) {
      caps.clear();
      let isImport = false;
      const end = ms.endCapture(m);
      for (let k = ms.firstCapture(m); k < end; k++) {
        const name = ms.captureName(k);
        if (name === 'import') isImport = true;
        if (!caps.has(name)) caps.set(name, k);
      }
      if (caps.has('decorator')) continue;
      if (isImport) this.readImport(m);
      else this.readMatch(caps);
    }
    return this.out;
  }

  /** A match of any other pattern: the first reader whose capture it holds, else the definition attributes. */
  private readMatch(caps: Captures): void {
    if (
      this.readCall(caps) ||
      this.readValue(caps) ||
      this.readTypeExpr(caps) ||
      this.readSupertype(caps) ||
      this.readBinding(caps) ||
      this.readLocal(caps) ||
      this.readModule(caps)
    )
      return;
    this.readDefAttributes(caps);
  }

  private findDecorated(): void {
    const { ms } = this;
    for (let m = 0; m < ms.matchCount; m++) {
      let dec: number | undefined;
      let owner: number | undefined;
      const end = ms.endCapture(m);
      for (let k = ms.firstCapture(m); k < end; k++) {
        const name = ms.captureName(k);
        if (name === 'decorator') dec ??= k;
        else if (name === 'decorator.owner') owner ??= k;
      }
      if (dec !== undefined && owner !== undefined)
        this.decorated.push({ start: ms.start(dec), end: ms.end(dec), owner: ms.start(owner) });
    }
  }

  private lineAt(x: number): number {
    return rowOf(this.src.starts, x) + 1;
  }

  private textOf(k: number): string {
    return this.src.text.slice(this.ms.start(k), this.ms.end(k));
  }

  private receiverOf(k: number | undefined): string | null {
    if (k === undefined) return null;
    const r = this.textOf(k);
    return this.lang.normalizeReceiver ? this.lang.normalizeReceiver(r) : r;
  }

  /** The symbol a use at `at` belongs to (a decorator's: the decorated definition's). */
  private useAt(at: number): number {
    if (this.decorated.length > 0) {
      for (const d of this.decorated)
        if (d.start <= at && at < d.end) {
          at = d.owner;
          break;
        }
    }
    return this.tree.enclosingSymbol(at);
  }

  private readImport(m: number): void {
    const { ms } = this;
    const views: CaptureView[] = [];
    for (let k = ms.firstCapture(m); k < ms.endCapture(m); k++) {
      views.push({
        name: ms.captureName(k),
        text: this.textOf(k),
        row: ms.row(k),
        type: ms.node(k).type,
      });
    }
    this.out.imports.push(...this.lang.readImportBindings(views));
  }

  private readCall(caps: Captures): boolean {
    const callName = caps.get('call.name');
    const dyn = caps.get('call.dynamic');
    const ctor = caps.get('call.super') ?? caps.get('call.this');
    if (callName === undefined && dyn === undefined && ctor === undefined) return false;
    const at = this.ms.start((callName ?? dyn ?? ctor)!);
    const def = this.useAt(at);
    const argsCap = caps.get('call.args');
    const args = argsCap !== undefined ? this.ms.namedChildCount(argsCap) : undefined;
    const argTypes =
      argsCap !== undefined && this.lang.argumentHint
        ? argumentTypes(this.lang, this.ms.node(argsCap), this.src.text)
        : undefined;
    if (dyn !== undefined) {
      this.out.uses.push({ kind: 'd', name: this.textOf(dyn), receiver: null, line: this.lineAt(at), def });
      return true;
    }
    if (ctor !== undefined) {
      this.out.uses.push({
        kind: 'c',
        name: this.lang.constructorName ?? 'constructor',
        receiver: caps.has('call.super') ? 'super' : 'this',
        line: this.lineAt(at),
        ...(args !== undefined ? { args } : {}),
        ...(argTypes ? { argTypes } : {}),
        def,
      });
      return true;
    }
    let name = this.textOf(callName!);
    let receiver = this.receiverOf(caps.get('call.receiver'));
    const isNew = caps.has('call.new');
    if (isNew) {
      // A construction names a type: `a.B<T>` -> receiver a, name B.
      const cleaned = this.lang.cleanType(name)[0];
      if (cleaned === undefined) return true;
      const dot = cleaned.lastIndexOf('.');
      if (dot !== -1) {
        receiver = receiver === null ? cleaned.slice(0, dot) : `${receiver}.${cleaned.slice(0, dot)}`;
        name = cleaned.slice(dot + 1);
      } else name = cleaned;
    }
    this.out.uses.push({
      kind: isNew ? 'n' : 'c',
      name,
      receiver,
      line: this.lineAt(at),
      ...(args !== undefined ? { args } : {}),
      ...(argTypes ? { argTypes } : {}),
      def,
    });
    return true;
  }

  private readValue(caps: Captures): boolean {
    const valueName = caps.get('value.name');
    if (valueName === undefined) return false;
    const at = this.ms.start(valueName);
    this.out.uses.push({
      kind: 'v',
      name: this.src.text.slice(at, this.ms.end(valueName)),
      receiver: this.receiverOf(caps.get('value.receiver')),
      line: this.lineAt(at),
      def: this.useAt(at),
    });
    return true;
  }

  /** Type references, one per cleaned type (`a.B` -> receiver a, name B). */
  private pushTypeUses(raw: string | readonly string[], at: number, def: number): void {
    const types = typeof raw === 'string' ? this.lang.cleanType(raw) : raw;
    for (const t of types) {
      const dot = t.lastIndexOf('.');
      this.out.uses.push({
        kind: 't',
        name: dot === -1 ? t : t.slice(dot + 1),
        receiver: dot === -1 ? null : t.slice(0, dot),
        line: this.lineAt(at),
        def,
      });
    }
  }

  private readTypeExpr(caps: Captures): boolean {
    const typeExpr = caps.get('type.expr');
    if (typeExpr === undefined) return false;
    const at = this.ms.start(typeExpr);
    this.pushTypeUses(this.src.text.slice(at, this.ms.end(typeExpr)), at, this.tree.enclosingSymbol(at));
    return true;
  }

  private readSupertype(caps: Captures): boolean {
    const ext = caps.get('super.extends') ?? caps.get('super.implements');
    if (ext === undefined) return false;
    const at = this.ms.start(ext);
    const def = this.tree.enclosing(at);
    if (def === -1) return true;
    const relation = caps.has('super.extends') ? 'extends' : 'implements';
    for (const t of this.lang.cleanType(this.src.text.slice(at, this.ms.end(ext)))) {
      this.tree.extras[def]!.supertypes.push({ text: t, relation, line: this.lineAt(at) });
    }
    return true;
  }

  private readBinding(caps: Captures): boolean {
    const bindName = caps.get('bind.param') ?? caps.get('bind.local') ?? caps.get('bind.field');
    if (bindName === undefined) return false;
    const { lang, tree, ms } = this;
    const bindAt = ms.start(bindName);
    const def = tree.enclosing(bindAt);
    const binding = caps.has('bind.param') ? 'p' : caps.has('bind.field') ? 'f' : 'l';
    const written = this.src.text.slice(bindAt, ms.end(bindName));
    const aliasCap = caps.get('bind.alias');
    if (aliasCap !== undefined) {
      this.out.aliases.push({ name: written, alias: this.textOf(aliasCap), def });
      return true;
    }
    const typeCap = caps.get('bind.type') ?? caps.get('bind.new') ?? caps.get('bind.call');
    if (typeCap === undefined) return true;
    const via = caps.has('bind.type') ? undefined : caps.has('bind.new') ? ('n' as const) : ('c' as const);
    const typeAt = ms.start(typeCap);
    const raw = this.src.text.slice(typeAt, ms.end(typeCap));
    const bound = lang.normalizeName ? lang.normalizeName(written) : written;
    if (binding !== 'f') {
      // A parameter or variable is a local of its function too.
      const fn = tree.enclosingFunction(bindAt);
      if (fn !== -1) (tree.extras[fn]!.locals ??= new Set()).add(bound);
    }
    const call = raw.replace(/\s+/g, '');
    const cleaned = via === 'c' ? [lang.normalizeReceiver ? lang.normalizeReceiver(call) : call] : lang.cleanType(raw);
    // A declared type is a type reference.
    if (via === undefined && cleaned.length > 0) this.pushTypeUses(cleaned, typeAt, tree.enclosingSymbol(typeAt));
    const type = cleaned[0];
    if (type === undefined || type === '') return true;
    this.out.bindings.push({ binding, name: bound, type, ...(via ? { via } : {}), def });
    return true;
  }

  private readLocal(caps: Captures): boolean {
    const local = caps.get('local');
    if (local === undefined) return false;
    const at = this.ms.start(local);
    const def = this.tree.enclosingFunction(at);
    if (def === -1) return true;
    const e = this.tree.extras[def]!;
    (e.locals ??= new Set()).add(this.src.text.slice(at, this.ms.end(local)));
    return true;
  }

  /** The file's default export and package name. */
  private readModule(caps: Captures): boolean {
    const defaultCap = caps.get('export.default');
    if (defaultCap !== undefined) {
      this.out.defaultExport = this.textOf(defaultCap);
      return true;
    }
    const pkgCap = caps.get('package.name');
    if (pkgCap === undefined) return false;
    let pkg = this.textOf(pkgCap).replace(/\s+/g, '');
    // One spelling for package names (PHP `A\B` is `A.B`, as receivers are written).
    if (this.lang.normalizeReceiver) pkg = this.lang.normalizeReceiver(pkg);
    this.out.pkg = pkg;
    return true;
  }

  private readDefAttributes(caps: Captures): void {
    for (const [name, c] of caps) {
      if (!name.startsWith('def.')) continue;
      const at = this.ms.start(c);
      const def = this.tree.enclosing(at);
      if (def === -1) continue;
      const e = this.tree.extras[def]!;
      const t = this.src.text.slice(at, this.ms.end(c));
      if (name === 'def.receiver') e.receiver = this.lang.cleanType(t)[0];
      else if (name === 'def.self') e.selfName = t;
      else if (name === 'def.returns') e.returns = this.lang.cleanType(t)[0];
      else if (name === 'def.params') e.params = t;
      else if (name === 'def.static') e.static = true;
    }
  }
}

/**
 * Keys: the chain of enclosing definitions' names (a Go method: its receiver type) + name + kind; definitions with
 * the same base are told apart by their parameter types where the language has overloads, else by a counter.
 */
function symbolKeys(tree: DefTree, lang: SymbolLanguage | undefined): string[] {
  const { n, defs, parent, isSymbol, extras, kinds } = tree;
  const bases: string[] = new Array<string>(n);
  const chains: string[] = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    const d = defs[i]!;
    const p = parent[i]!;
    const receiver = extras[i]!.receiver;
    const chain = receiver !== undefined ? receiver : p === -1 ? '' : chains[p]!;
    const name = tree.containerNameOf(i, lang).replace(/#/g, '_');
    chains[i] = chain === '' ? name : `${chain}.${name}`;
    bases[i] = `${chains[i]}:${kinds[i] ?? d.chunkType}`;
  }
  const keys: string[] = new Array<string>(n);
  const groups = new Map<string, number[]>();
  for (let i = 0; i < n; i++) {
    if (!isSymbol[i]) continue;
    const g = groups.get(bases[i]!);
    if (g) g.push(i);
    else groups.set(bases[i]!, [i]);
  }
  for (const [base, members] of groups) {
    if (members.length === 1) {
      keys[members[0]!] = base;
      continue;
    }
    const taken = new Set<string>();
    for (const i of members) {
      let key = base;
      const params = extras[i]!.params;
      if (lang?.overloads && lang.paramTypes && params !== undefined) {
        key = `${base}~(${lang
          .paramTypes(params)
          .map((t) => t.replace(/\s+/g, ''))
          .join(',')})`;
      }
      let candidate = key;
      for (let k = 2; taken.has(candidate); k++) candidate = `${key}~${k}`;
      taken.add(candidate);
      keys[i] = candidate;
    }
  }
  return keys;
}

/** The spec's Symbol of definition i (a Symbol), with its key, lines, signature and doc. */
function symbolInfo(tree: DefTree, i: number, keys: readonly string[], src: Src, style: 'brace' | 'colon'): SymbolInfo {
  const d = tree.defs[i]!;
  const sp = tree.symbolParent(i);
  const info: SymbolInfo = {
    name: d.name,
    kind: SPEC_KIND[d.chunkType]!,
    line: d.nameRow + 1,
    key: keys[i]!,
    symbol_kind: tree.kinds[i] ?? 'function',
    end_line: rowOf(src.starts, Math.max(d.startIndex, d.endIndex - 1)) + 1,
    container: sp === -1 ? null : keys[sp]!,
  };
  const signature = signatureOf(src, d, style);
  if (signature !== '') info.signature = signature;
  const doc = docOf(src, d, style);
  if (doc !== '') info.doc = doc;
  return info;
}

/** The definition fact of Symbol i (its SymbolInfo already made). */
function definitionFact(tree: DefTree, i: number, info: SymbolInfo, lang: SymbolLanguage): DefinitionFact {
  const e = tree.extras[i]!;
  const p = tree.parent[i]!;
  const containerName = e.receiver ?? (p === -1 ? undefined : tree.containerNameOf(p, lang));
  const symbol_kind = info.symbol_kind as SymbolDefKind;
  let arity: number | null = null;
  if (e.params !== undefined) {
    arity = lang.arity(e.params);
    if (arity !== null && lang.instanceParam && FUNCTION_KINDS.has(symbol_kind) && symbol_kind !== 'function')
      arity = Math.max(0, arity - 1);
  }
  const fact: DefinitionFact = {
    key: info.key!,
    name: info.name,
    symbol_kind,
    container: info.container ?? null,
    line: info.line,
    end_line: info.end_line!,
  };
  if (containerName !== undefined) fact.container_name = containerName;
  if (arity !== null) fact.arity = arity;
  if (e.supertypes.length > 0) fact.supertypes = e.supertypes;
  if (e.static) fact.static = true;
  if (e.returns !== undefined) fact.returns = e.returns;
  if (e.selfName !== undefined) fact.self_name = e.selfName;
  if (e.locals && e.locals.size > 0) fact.locals = [...e.locals].sort();
  return fact;
}

/**
 * The use facts (symbols indexed by position among the Symbols: `factIndex`) and the count of top-level uses. A
 * call's own `a.b` is no value use of b; a value use of a local name of the enclosing functions is no symbol use;
 * one reference per name and line.
 */
function useFacts(tree: DefTree, raw: readonly RawUse[], factIndex: Int32Array): { uses: UseFact[]; topLevel: number } {
  const shadowed = (def: number, name: string): boolean => {
    for (let i = def; i !== -1; i = tree.parent[i]!) if (tree.extras[i]!.locals?.has(name)) return true;
    return false;
  };
  const uses: UseFact[] = [];
  let topLevel = 0;
  const seen = new Set<string>();
  const calls = new Set<string>();
  for (const r of raw) if (r.kind === 'c') calls.add(`${r.def}\0${r.receiver}\0${r.name}\0${r.line}`);
  for (const r of raw) {
    if (r.kind === 'v' && r.receiver !== null && calls.has(`${r.def}\0${r.receiver}\0${r.name}\0${r.line}`)) continue;
    if (r.def === -1) {
      topLevel++;
      continue;
    }
    if (r.kind === 'v' && r.receiver === null && shadowed(r.def, r.name)) continue;
    const from = factIndex[r.def]!;
    if (r.kind === 'v' || r.kind === 't') {
      const sig = `${from}\0${r.kind}\0${r.receiver}\0${r.name}\0${r.line}`;
      if (seen.has(sig)) continue;
      seen.add(sig);
    }
    const use: UseFact = [r.kind, from, r.line, r.name];
    if (r.receiver !== null || r.args !== undefined) use.push(r.receiver);
    if (r.args !== undefined) use.push(r.args);
    if (r.args !== undefined && r.argTypes) use.push(r.argTypes);
    uses.push(use);
  }
  return { uses, topLevel };
}

/** The binding facts: aliases take their source's type; each binding is scoped to the Symbol holding it. */
function bindingFacts(tree: DefTree, g: Gathered, factIndex: Int32Array): BindingFact[] {
  const { parent, kinds, isSymbol } = tree;
  const raw = g.bindings;
  for (const a of g.aliases) {
    const source = raw.find((b) => b.def === a.def && b.name === a.alias && b.binding !== 'f');
    if (source)
      raw.push({
        binding: 'f',
        name: a.name,
        type: source.type,
        ...(source.via ? { via: source.via } : {}),
        def: a.def,
      });
  }
  const bindings: BindingFact[] = [];
  for (const b of raw) {
    let scope = b.def;
    let binding = b.binding;
    if (binding === 'f') {
      // `this.x = ...` inside a method binds a field of the enclosing class.
      while (scope !== -1 && FUNCTION_KINDS.has(kinds[scope]!)) scope = parent[scope]!;
    } else if (binding === 'l' && scope !== -1 && isSymbol[scope] && !FUNCTION_KINDS.has(kinds[scope]!)) {
      binding = 'f';
    }
    while (scope !== -1 && !isSymbol[scope]) scope = parent[scope]!;
    const fact: BindingFact = [binding, scope === -1 ? -1 : factIndex[scope]!, b.name, b.type];
    if (b.via) fact.push(b.via);
    bindings.push(fact);
  }
  return bindings;
}

/**
 * Implementation blocks (Rust impl): a container that is no symbol but carries supertypes, or whose name the
 * language cleans, gives its type those supertypes and the methods defined in it.
 */
function implFacts(tree: DefTree, keys: readonly string[], lang: SymbolLanguage): ImplFact[] {
  const { n, defs, parent, isSymbol, kinds, extras } = tree;
  const impls: ImplFact[] = [];
  for (let i = 0; i < n; i++) {
    if (isSymbol[i] || kinds[i] !== null) continue;
    const methods: string[] = [];
    for (let j = i + 1; j < n && defs[j]!.startIndex < defs[i]!.endIndex; j++)
      if (parent[j] === i && isSymbol[j]) methods.push(keys[j]!);
    if (extras[i]!.supertypes.length === 0) continue;
    impls.push({ type: lang.containerName!(defs[i]!.name), supertypes: extras[i]!.supertypes, methods });
  }
  return impls;
}

/**
 * The file's symbols (the spec's Symbol vertices, with keys) and, when the language has a SymbolLanguage and a
 * symbols query and `withFacts` holds, its symbol facts. Without facts `query` may be the key patterns alone
 * (LoadedLanguage.symbolKeyQuery): the keys come out the same. Runs in the parse threads right after the
 * definitions query.
 */
export function extractSymbols(
  defs: readonly RawDefinition[],
  src: Src,
  lang: SymbolLanguage | undefined,
  query: Parser.Query | null,
  root: Parser.SyntaxNode,
  signatureStyle: 'brace' | 'colon',
  withFacts = true,
): { symbols: SymbolInfo[]; facts?: SymbolFacts } {
  const tree = new DefTree(defs, lang);
  const gathered = lang && query ? new MatchReader(tree, src, lang).readAll(query, root) : null;
  const keys = symbolKeys(tree, lang);
  const facts = lang && gathered && withFacts;
  const symbols: SymbolInfo[] = [];
  const factDefs: DefinitionFact[] = [];
  // Facts index their symbols by position in `factDefs`.
  const factIndex = new Int32Array(tree.n).fill(-1);
  for (let i = 0; i < tree.n; i++) {
    if (!tree.isSymbol[i]) continue;
    const info = symbolInfo(tree, i, keys, src, signatureStyle);
    symbols.push(info);
    if (facts) {
      factIndex[i] = factDefs.length;
      factDefs.push(definitionFact(tree, i, info, lang));
    }
  }
  if (!facts) return { symbols };
  const { uses, topLevel } = useFacts(tree, gathered.uses, factIndex);
  const out: SymbolFacts = {
    version: SYMBOL_FACTS_VERSION,
    defs: factDefs,
    bindings: bindingFacts(tree, gathered, factIndex),
    uses,
    top_level_uses: topLevel,
    imports: gathered.imports,
  };
  if (gathered.pkg !== undefined) out.package = gathered.pkg;
  if (lang.containerName) {
    const impls = implFacts(tree, keys, lang);
    if (impls.length > 0) out.impls = impls;
  }
  if (gathered.defaultExport !== undefined) out.default_export = gathered.defaultExport;
  return { symbols, facts: out };
}

const SIGNATURE_MAX = 240;
const DOC_MAX = 400;

/** The declaration's head: from its start to its body (`{` or a line-ending `:` at bracket depth 0), collapsed. */
function signatureOf(src: Src, d: RawDefinition, style: 'brace' | 'colon'): string {
  const text = src.text;
  const limit = Math.min(d.endIndex, d.startIndex + 600);
  let depth = 0;
  let end = limit;
  let newlines = 0;
  for (let i = d.startIndex; i < limit; i++) {
    const c = text.charCodeAt(i);
    if (c === 40 || c === 91) depth++;
    else if (c === 41 || c === 93) depth--;
    else if (c === 10) {
      if (depth <= 0 && ++newlines >= 4) {
        end = i;
        break;
      }
    } else if (depth <= 0 && style === 'brace' && c === 123) {
      end = i;
      break;
    } else if (depth <= 0 && style === 'colon' && c === 58) {
      const next = text.charCodeAt(i + 1);
      if (Number.isNaN(next) || next === 10 || next === 13 || next === 32 || next === 35) {
        end = i;
        break;
      }
    }
  }
  const s = text.slice(d.startIndex, end).replace(/\s+/g, ' ').trim();
  return s.length > SIGNATURE_MAX ? s.slice(0, SIGNATURE_MAX - 1) + '…' : s;
}

function clip(s: string): string {
  const t = s
    .replace(/[ \t]+/g, ' ')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return t.length > DOC_MAX ? t.slice(0, DOC_MAX - 1) + '…' : t;
}

/** The doc comment right above the definition (decorator/annotation lines skipped), or Python's docstring. */
function docOf(src: Src, d: RawDefinition, style: 'brace' | 'colon'): string {
  const lines = src.lines;
  if (style === 'colon') {
    // The header ends at the first line ending in ':'; the docstring is the body's first statement.
    let r = d.nameRow;
    const last = Math.min(lines.length, d.nameRow + 12);
    while (r < last && !/:\s*(#.*)?$/.test(lines[r]!.replace(/\r?\n$/, ''))) r++;
    for (r++; r < last && lines[r]!.trim() === ''; r++);
    const first = (lines[r] ?? '').trim();
    const m = /^[rRuUbB]{0,2}("""|'''|"|')/.exec(first);
    if (!m) return '';
    const q = m[1]!;
    const body: string[] = [];
    for (let k = r; k < Math.min(lines.length, r + 40); k++) {
      const line = k === r ? first.slice(m[0].length) : lines[k]!.trim();
      const close = line.indexOf(q);
      if (close !== -1) {
        body.push(line.slice(0, close));
        break;
      }
      body.push(line);
      if (q.length === 1) break;
    }
    return clip(body.join('\n'));
  }
  const out: string[] = [];
  let r = d.row - 1;
  while (r >= 0 && /^\s*@/.test(lines[r]!)) r--;
  let inBlock = false;
  for (; r >= 0 && out.length < 40; r--) {
    const t = lines[r]!.trim();
    if (inBlock) {
      out.push(t);
      if (/^\/\*/.test(t)) break;
      continue;
    }
    if (t.endsWith('*/')) {
      out.push(t);
      if (/^\/\*/.test(t)) break;
      inBlock = true;
      continue;
    }
    if (t.startsWith('//') || (t.startsWith('#') && !t.startsWith('#[') && !t.startsWith('#include'))) {
      out.push(t);
      continue;
    }
    break;
  }
  if (out.length === 0) return '';
  const body = out
    .reverse()
    .map((l) =>
      l
        .replace(/^\/\*\*?/, '')
        .replace(/\*\/$/, '')
        .replace(/^\*(?!\/)/, '')
        .replace(/^\/\/\/?!?/, '')
        .replace(/^#+!?/, '')
        .trim(),
    )
    .join('\n');
  return clip(body);
}

/**
 * The argument types of a call (SymbolLanguage.argumentHint) for the resolver's choice among overloads of one arity;
 * undefined when the syntax tells none of them.
 */
function argumentTypes(lang: SymbolLanguage, list: Parser.SyntaxNode, text: string): string[] | undefined {
  const out: string[] = [];
  let known = false;
  for (const arg of list.namedChildren) {
    const hint = lang.argumentHint!(arg.type, text.slice(arg.startIndex, arg.endIndex));
    if (hint === null) continue;
    if (hint !== '') known = true;
    out.push(hint);
  }
  return known ? out : undefined;
}
