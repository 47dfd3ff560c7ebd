import type Parser from 'tree-sitter';
import type { ChunkType, SymbolInfo, SymbolKind } from '../types.ts';
import type { CaptureView } from '../languages/plugin.ts';
import { rowOf } from '../chunk/ast.ts';
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
  const n = defs.length;
  // Parents (the innermost enclosing definition) from the source order: outer definitions come first.
  const parent = new Int32Array(n).fill(-1);
  const stack: number[] = [];
  for (let i = 0; i < n; i++) {
    const d = defs[i]!;
    while (stack.length > 0 && defs[stack[stack.length - 1]!]!.endIndex <= d.startIndex) stack.pop();
    if (stack.length > 0) parent[i] = stack[stack.length - 1]!;
    stack.push(i);
  }
  const kinds = defs.map((d) => defKind(d, lang?.constructorName ?? null));
  const isSymbol = defs.map((d) => SPEC_KIND[d.chunkType] !== undefined);
  const extras: DefExtra[] = defs.map(() => ({ supertypes: [] }));
  const startsOfDefs = defs.map((d) => d.startIndex);

  /** The innermost definition around offset `at`, or -1. */
  const enclosing = (at: number): number => {
    let lo = 0;
    let hi = n - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (startsOfDefs[mid]! <= at) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    while (found !== -1 && defs[found]!.endIndex <= at) found = parent[found]!;
    return found;
  };
  const enclosingSymbol = (at: number): number => {
    let i = enclosing(at);
    while (i !== -1 && !isSymbol[i]) i = parent[i]!;
    return i;
  };
  const enclosingFunction = (at: number): number => {
    let i = enclosing(at);
    while (i !== -1 && !(isSymbol[i] && FUNCTION_KINDS.has(kinds[i]!))) i = parent[i]!;
    return i;
  };

  /** A use before its enclosing symbol's index is known: the tuple's fields, `def` the raw definition index. */
  interface RawUse {
    kind: UseFact[0];
    line: number;
    name: string;
    receiver: string | null;
    args?: number;
    def: number;
  }
  const rawUses: RawUse[] = [];
  const rawBindings: Array<{ binding: 'p' | 'l' | 'f'; name: string; type: string; via?: 'n' | 'c'; def: number }> = [];
  const imports: ImportBindingFact[] = [];
  const aliases: Array<{ name: string; alias: string; def: number }> = [];
  let pkg: string | undefined;
  let defaultExport: string | undefined;

  if (lang && query) {
    const text = src.text;
    const lineAt = (x: number): number => rowOf(src.starts, x) + 1;
    // Per match, the first node of each capture name; offsets and texts are read (native calls) only where used.
    const textOf = (n: Parser.SyntaxNode | undefined): string | undefined =>
      n === undefined ? undefined : text.slice(n.startIndex, n.endIndex);
    const receiverOf = (n: Parser.SyntaxNode | undefined): string | null => {
      const r = textOf(n);
      if (r === undefined) return null;
      return lang.normalizeReceiver ? lang.normalizeReceiver(r) : r;
    };
    const matches = query.matches(root);
    // A decorator's uses belong to what it decorates (Python: the decorator sits outside the definition's node).
    const decorated: Array<{ start: number; end: number; owner: number }> = [];
    for (const m of matches) {
      let dec: Parser.SyntaxNode | undefined;
      let owner: Parser.SyntaxNode | undefined;
      for (const c of m.captures) {
        if (c.name === 'decorator') dec ??= c.node;
        else if (c.name === 'decorator.owner') owner ??= c.node;
      }
      if (dec && owner) decorated.push({ start: dec.startIndex, end: dec.endIndex, owner: owner.startIndex });
    }
    const ownerAt = (at: number): number => {
      for (const d of decorated) if (d.start <= at && at < d.end) return d.owner;
      return at;
    };
    const useAt = (at: number): number => enclosingSymbol(decorated.length > 0 ? ownerAt(at) : at);
    const caps = new Map<string, Parser.SyntaxNode>();
    for (const match of matches) {
      caps.clear();
      let isImport = false;
      for (const c of match.captures) {
        if (c.name === 'import') isImport = true;
        if (!caps.has(c.name)) caps.set(c.name, c.node);
      }
      if (caps.has('decorator')) continue;
      if (isImport) {
        const views: CaptureView[] = match.captures.map((c) => ({
          name: c.name,
          text: c.node.text,
          row: c.node.startPosition.row,
          type: c.node.type,
        }));
        imports.push(...lang.readImportBindings(views));
        continue;
      }
      const callName = caps.get('call.name');
      const dyn = caps.get('call.dynamic');
      const ctor = caps.get('call.super') ?? caps.get('call.this');
      if (callName || dyn || ctor) {
        const at = (callName ?? dyn ?? ctor)!.startIndex;
        const def = useAt(at);
        const argsCap = caps.get('call.args');
        const args = argsCap ? argsCap.namedChildCount : undefined;
        if (dyn) {
          rawUses.push({ kind: 'd', name: textOf(dyn)!, receiver: null, line: lineAt(at), def });
          continue;
        }
        if (ctor) {
          const which = caps.has('call.super') ? 'super' : 'this';
          rawUses.push({
            kind: 'c',
            name: lang.constructorName ?? 'constructor',
            receiver: which,
            line: lineAt(at),
            ...(args !== undefined ? { args } : {}),
            def,
          });
          continue;
        }
        let name = textOf(callName)!;
        let receiver = receiverOf(caps.get('call.receiver'));
        const isNew = caps.has('call.new');
        if (isNew) {
          // A construction names a type: `a.B<T>` -> receiver a, name B.
          const cleaned = lang.cleanType(name)[0];
          if (cleaned === undefined) continue;
          const dot = cleaned.lastIndexOf('.');
          if (dot !== -1) {
            receiver = receiver === null ? cleaned.slice(0, dot) : `${receiver}.${cleaned.slice(0, dot)}`;
            name = cleaned.slice(dot + 1);
          } else name = cleaned;
        }
        rawUses.push({
          kind: isNew ? 'n' : 'c',
          name,
          receiver,
          line: lineAt(at),
          ...(args !== undefined ? { args } : {}),
          def,
        });
        continue;
      }
      const valueName = caps.get('value.name');
      if (valueName) {
        const at = valueName.startIndex;
        rawUses.push({
          kind: 'v',
          name: text.slice(at, valueName.endIndex),
          receiver: receiverOf(caps.get('value.receiver')),
          line: lineAt(at),
          def: useAt(at),
        });
        continue;
      }
      const typeExpr = caps.get('type.expr');
      if (typeExpr) {
        const at = typeExpr.startIndex;
        const def = enclosingSymbol(at);
        for (const t of lang.cleanType(text.slice(at, typeExpr.endIndex))) {
          const dot = t.lastIndexOf('.');
          rawUses.push({
            kind: 't',
            name: dot === -1 ? t : t.slice(dot + 1),
            receiver: dot === -1 ? null : t.slice(0, dot),
            line: lineAt(at),
            def,
          });
        }
        continue;
      }
      const ext = caps.get('super.extends') ?? caps.get('super.implements');
      if (ext) {
        const at = ext.startIndex;
        const def = enclosing(at);
        if (def === -1) continue;
        const relation = caps.has('super.extends') ? 'extends' : 'implements';
        for (const t of lang.cleanType(text.slice(at, ext.endIndex))) {
          extras[def]!.supertypes.push({ text: t, relation, line: lineAt(at) });
        }
        continue;
      }
      const bindName = caps.get('bind.param') ?? caps.get('bind.local') ?? caps.get('bind.field');
      if (bindName) {
        const bindAt = bindName.startIndex;
        const def = enclosing(bindAt);
        const binding = caps.has('bind.param') ? 'p' : caps.has('bind.field') ? 'f' : 'l';
        const written = text.slice(bindAt, bindName.endIndex);
        const aliasCap = caps.get('bind.alias');
        if (aliasCap) {
          // `self.x = x`: the field takes the type of the enclosing function's typed name x (resolved below).
          aliases.push({ name: written, alias: textOf(aliasCap)!, def });
          continue;
        }
        const typeCap = caps.get('bind.type') ?? caps.get('bind.new') ?? caps.get('bind.call');
        if (!typeCap) continue;
        const via = caps.has('bind.type') ? undefined : caps.has('bind.new') ? ('n' as const) : ('c' as const);
        const typeAt = typeCap.startIndex;
        const raw = text.slice(typeAt, typeCap.endIndex);
        const bound = lang.normalizeName ? lang.normalizeName(written) : written;
        if (binding !== 'f') {
          // A parameter or variable is a local of its function too.
          const fn = enclosingFunction(bindAt);
          if (fn !== -1) (extras[fn]!.locals ??= new Set()).add(bound);
        }
        const call = raw.replace(/\s+/g, '');
        const cleaned =
          via === 'c' ? [lang.normalizeReceiver ? lang.normalizeReceiver(call) : call] : lang.cleanType(raw);
        if (via === undefined && cleaned.length > 0) {
          // A declared type is a type reference.
          const from = enclosingSymbol(typeAt);
          for (const t of cleaned) {
            const dot = t.lastIndexOf('.');
            rawUses.push({
              kind: 't',
              name: dot === -1 ? t : t.slice(dot + 1),
              receiver: dot === -1 ? null : t.slice(0, dot),
              line: lineAt(typeAt),
              def: from,
            });
          }
        }
        const type = cleaned[0];
        if (type === undefined || type === '') continue;
        rawBindings.push({ binding, name: bound, type, ...(via ? { via } : {}), def });
        continue;
      }
      const local = caps.get('local');
      if (local) {
        const at = local.startIndex;
        const def = enclosingFunction(at);
        if (def === -1) continue;
        const e = extras[def]!;
        (e.locals ??= new Set()).add(text.slice(at, local.endIndex));
        continue;
      }
      const defaultCap = caps.get('export.default');
      if (defaultCap) {
        defaultExport = textOf(defaultCap);
        continue;
      }
      const pkgCap = caps.get('package.name');
      if (pkgCap) {
        pkg = textOf(pkgCap)!.replace(/\s+/g, '');
        // One spelling for package names (PHP `A\B` is `A.B`, as receivers are written).
        if (lang.normalizeReceiver) pkg = lang.normalizeReceiver(pkg);
        continue;
      }
      // Definition attributes.
      for (const [name, c] of caps) {
        if (!name.startsWith('def.')) continue;
        const at = c.startIndex;
        const def = enclosing(at);
        if (def === -1) continue;
        const e = extras[def]!;
        const t = text.slice(at, c.endIndex);
        if (name === 'def.receiver') e.receiver = lang.cleanType(t)[0];
        else if (name === 'def.self') e.selfName = t;
        else if (name === 'def.returns') e.returns = lang.cleanType(t)[0];
        else if (name === 'def.params') e.params = t;
        else if (name === 'def.static') e.static = true;
      }
    }
  }

  // Keys: the chain of enclosing definitions' names (a Go method: its receiver type) + name + kind.
  const bases: string[] = new Array<string>(n);
  const chains: string[] = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    const d = defs[i]!;
    const p = parent[i]!;
    const receiver = extras[i]!.receiver;
    const chain = receiver !== undefined ? receiver : p === -1 ? '' : chains[p]!;
    const written = !isSymbol[i] && lang?.containerName ? lang.containerName(d.name) : d.name;
    const name = written.replace(/#/g, '_');
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

  const symbols: SymbolInfo[] = [];
  const factDefs: DefinitionFact[] = [];
  const symbolParent = (i: number): number => {
    let p = parent[i]!;
    while (p !== -1 && !isSymbol[p]) p = parent[p]!;
    return p;
  };
  for (let i = 0; i < n; i++) {
    if (!isSymbol[i]) continue;
    const d = defs[i]!;
    const kind = SPEC_KIND[d.chunkType]!;
    const sp = symbolParent(i);
    const container = sp === -1 ? null : keys[sp]!;
    const end_line = rowOf(src.starts, Math.max(d.startIndex, d.endIndex - 1)) + 1;
    const symbol_kind = kinds[i] ?? 'function';
    const info: SymbolInfo = {
      name: d.name,
      kind,
      line: d.nameRow + 1,
      key: keys[i]!,
      symbol_kind,
      end_line,
      container,
    };
    const signature = signatureOf(src, d, signatureStyle);
    if (signature !== '') info.signature = signature;
    const doc = docOf(src, d, signatureStyle);
    if (doc !== '') info.doc = doc;
    symbols.push(info);
    if (lang && query && withFacts) {
      const e = extras[i]!;
      const p = parent[i]!;
      const parentName =
        p === -1 ? undefined : !isSymbol[p] && lang.containerName ? lang.containerName(defs[p]!.name) : defs[p]!.name;
      const containerName = e.receiver ?? parentName;
      let arity: number | null = null;
      if (e.params !== undefined) {
        arity = lang.arity(e.params);
        if (arity !== null && lang.instanceParam && FUNCTION_KINDS.has(symbol_kind) && symbol_kind !== 'function')
          arity = Math.max(0, arity - 1);
      }
      const fact: DefinitionFact = {
        key: keys[i]!,
        name: d.name,
        symbol_kind,
        container,
        line: d.nameRow + 1,
        end_line,
      };
      if (containerName !== undefined) fact.container_name = containerName;
      if (arity !== null) fact.arity = arity;
      if (e.supertypes.length > 0) fact.supertypes = e.supertypes;
      if (e.static) fact.static = true;
      if (e.returns !== undefined) fact.returns = e.returns;
      if (e.selfName !== undefined) fact.self_name = e.selfName;
      if (e.locals && e.locals.size > 0) fact.locals = [...e.locals].sort();
      factDefs.push(fact);
    }
  }
  if (!lang || !query || !withFacts) return { symbols };

  // Facts index their symbols by position in `factDefs`.
  const factIndex = new Int32Array(n).fill(-1);
  for (let i = 0, k = 0; i < n; i++) if (isSymbol[i]) factIndex[i] = k++;
  // Value uses of a local name of the enclosing functions are no symbol uses.
  const shadowed = (def: number, name: string): boolean => {
    for (let i = def; i !== -1; i = parent[i]!) if (extras[i]!.locals?.has(name)) return true;
    return false;
  };
  const uses: UseFact[] = [];
  let topLevel = 0;
  const seen = new Set<string>();
  // A call's own `a.b` is no value use of b.
  const calls = new Set<string>();
  for (const r of rawUses) if (r.kind === 'c') calls.add(`${r.def}\0${r.receiver}\0${r.name}\0${r.line}`);
  for (const r of rawUses) {
    if (r.kind === 'v' && r.receiver !== null && calls.has(`${r.def}\0${r.receiver}\0${r.name}\0${r.line}`)) continue;
    if (r.def === -1) {
      topLevel++;
      continue;
    }
    if (r.kind === 'v' && r.receiver === null && shadowed(r.def, r.name)) continue;
    const from = factIndex[r.def]!;
    if (r.kind === 'v' || r.kind === 't') {
      // One reference per name and line.
      const sig = `${from}\0${r.kind}\0${r.receiver}\0${r.name}\0${r.line}`;
      if (seen.has(sig)) continue;
      seen.add(sig);
    }
    const use: UseFact = [r.kind, from, r.line, r.name];
    if (r.receiver !== null || r.args !== undefined) use.push(r.receiver);
    if (r.args !== undefined) use.push(r.args);
    uses.push(use);
  }
  for (const a of aliases) {
    const source = rawBindings.find((b) => b.def === a.def && b.name === a.alias && b.binding !== 'f');
    if (source)
      rawBindings.push({
        binding: 'f',
        name: a.name,
        type: source.type,
        ...(source.via ? { via: source.via } : {}),
        def: a.def,
      });
  }
  const bindings: BindingFact[] = [];
  for (const b of rawBindings) {
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
  const facts: SymbolFacts = {
    version: SYMBOL_FACTS_VERSION,
    defs: factDefs,
    bindings,
    uses,
    top_level_uses: topLevel,
    imports,
  };
  if (pkg !== undefined) facts.package = pkg;
  // Implementation blocks (Rust impl): a container that is no symbol but carries supertypes, or whose name the
  // language cleans, gives its type those supertypes and the methods defined in it.
  if (lang.containerName) {
    const impls: ImplFact[] = [];
    for (let i = 0; i < n; i++) {
      if (isSymbol[i] || kinds[i] !== null) continue;
      const methods: string[] = [];
      for (let j = i + 1; j < n && defs[j]!.startIndex < defs[i]!.endIndex; j++)
        if (parent[j] === i && isSymbol[j]) methods.push(keys[j]!);
      if (extras[i]!.supertypes.length === 0) continue;
      impls.push({ type: lang.containerName(defs[i]!.name), supertypes: extras[i]!.supertypes, methods });
    }
    if (impls.length > 0) facts.impls = impls;
  }
  if (defaultExport !== undefined) facts.default_export = defaultExport;
  return { symbols, facts };
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
