/**
 * The symbol graph's contract (issue 28; /work/lead/symbol-contract.md made code). Shared by the engine (per-file
 * facts in the parse threads, the repo-wide resolver), the sync pipeline (storage per content hash, the sync step,
 * AGE labels) and the truth harness. Everything here is plain JSON-serialisable data: no DB, no Temporal, no
 * tree-sitter objects.
 *
 * Changes after the first landing are additive and announced in commit messages starting "symbol contract: ".
 *
 * Flow:
 *   1. parse threads: FileAnalysis.symbols (SymbolInfo, with `key`) + FileAnalysis.symbol_facts (SymbolFacts),
 *      both functions of the file's content only (store them once per content hash, reuse on re-syncs);
 *   2. calling thread, once per sync: `importTargets(tree, analysis)` (engine/symbols/index.ts) gives the file-level
 *      import resolution per import as written; for a reused file, `resolveImportTargets(language, path, imports,
 *      tree)` with its stored ImportRefs;
 *   3. `resolveSymbolGraph({ files })` (pure, deterministic, sorted) gives the Symbol -> Symbol edges, the
 *      unresolved uses and the stats. Same input, same output: an incremental sync equals a full one.
 */

// ---------------------------------------------------------------------------------------------------------------
// Identity
// ---------------------------------------------------------------------------------------------------------------

/**
 * A symbol's key inside its file: container chain + name + kind, never a line number.
 *   `parse:function`, `Router.add_route:method`, `Shape:interface`, `Outer.inner:function`,
 *   an overload (only where the language has them, and only when the name is overloaded in its container):
 *   `Foo.bar:method~(int,String)` (the parameter types as written, white space removed), and when two definitions
 *   are still equal (a Python function defined twice, a property getter/setter pair) the later ones get `~2`, `~3`
 *   in source order.
 * The container chain is the names of the enclosing definitions (classes, functions, namespaces, modules), or a
 * method's receiver/impl type where the method is written outside it (Go `func (s *Server) Serve()` is
 * `Server.Serve:method`). Keys never contain '#'.
 */
export type SymbolKey = string;

/** A symbol repository-wide: `<file_path>#<key>` (the file path is repository-relative with '/' separators). */
export type SymbolRef = string;

/** Builds a SymbolRef. */
export function symbolRef(filePath: string, key: SymbolKey): SymbolRef {
  return `${filePath}#${key}`;
}

/** Splits a SymbolRef (at its last '#': keys never hold one, paths may). Null when there is no '#'. */
export function parseSymbolRef(ref: SymbolRef): { file_path: string; key: SymbolKey } | null {
  const at = ref.lastIndexOf('#');
  if (at <= 0 || at === ref.length - 1) return null;
  return { file_path: ref.slice(0, at), key: ref.slice(at + 1) };
}

/**
 * The finer kind of a symbol (SymbolInfo.symbol_kind; the last segment of its key). The spec's `kind` stays
 * function | class | method: constructor -> method; interface, struct, trait, enum, type, record, object,
 * protocol -> class.
 */
export type SymbolDefKind =
  | 'function'
  | 'method'
  | 'constructor'
  | 'class'
  | 'interface'
  | 'struct'
  | 'trait'
  | 'enum'
  | 'type'
  | 'record'
  | 'object'
  | 'protocol'
  | 'module'
  | 'namespace';

// ---------------------------------------------------------------------------------------------------------------
// Per-file facts (parse threads): a function of the file's content only
// ---------------------------------------------------------------------------------------------------------------

/** Bumped whenever extraction changes what a file's facts hold: stored facts of another version are re-extracted. */
export const SYMBOL_FACTS_VERSION = 4;

/** A supertype as written on a definition (`class A extends B implements C, D`, `class A(B, m.C)`, Go embedding). */
export interface SupertypeFact {
  /** The type as written, generics stripped: `B`, `m.C`, `pkg.Reader`. */
  text: string;
  /** `extends` (class or interface inheritance, Python bases, Go embedded interfaces/structs) or `implements`. */
  relation: 'extends' | 'implements';
  line: number;
}

/**
 * A definition: the same entries as FileAnalysis.symbols (same order, same keys), with what resolution needs.
 * `container` is the key of the enclosing definition that is itself a symbol (null at the top level or when the
 * container is not a symbol of the file, e.g. a Go receiver type declared in another file: then `container_name`
 * still names it).
 */
export interface DefinitionFact {
  key: SymbolKey;
  name: string;
  symbol_kind: SymbolDefKind;
  /** Key of the enclosing symbol in this file, or null. */
  container: SymbolKey | null;
  /** The name of the enclosing definition as written (Go: the receiver type, Rust: the impl type); absent at top level. */
  container_name?: string;
  line: number;
  end_line: number;
  /** Number of parameters as written (receiver and self/this excluded); absent when unknown. */
  arity?: number;
  /** Supertypes as written (types only); absent when none. */
  supertypes?: SupertypeFact[];
  /** Static/class-level member (`static`, `@staticmethod`, `@classmethod`): reached through the type, not `this`. */
  static?: boolean;
  /** The declared result type as written, cleaned (`Foo`, `pkg.Foo`); absent when none is declared. */
  returns?: string;
  /** Go: the receiver's name (`s` in `func (s *Server) Serve()`): a use through it is a `self` use. */
  self_name?: string;
  /**
   * Names declared in the definition's body or parameters without a known type (sorted, distinct): they shadow
   * outer names, so a bare call of one is dynamic (a function value), not a call of a same-named symbol.
   */
  locals?: string[];
}

/**
 * A typed name visible in a scope, as a tuple (facts are stored per content hash: compact JSON):
 * `[binding, scope, name, type, via?]`.
 * - binding: `p` a typed parameter (`x: Foo`, `Foo x`, Go `x *Foo`), `l` a local (`var x Foo`, `Foo x = ...`,
 *   `let x: Foo`, `x = Foo()`, `const x = new Foo()`, `x := &Foo{}`), `f` a field of a class (`private x: Foo`,
 *   `this.x = new Foo()`, `self.x = Foo()`, Go struct field `x *Foo`);
 * - scope: index in `defs` of the function/method holding it (for a field: its class), -1 at the top level;
 * - type: as written and cleaned (generics, pointers, optionals stripped): `Foo`, `pkg.Foo`; with via `c` the callee
 *   as written instead;
 * - via: absent = declared; `n` = a construction of `type`; `c` = the value of calling `type` (`x = Foo()`,
 *   `x := NewFoo()`): the resolver reads the callee's class or declared result type.
 */
export type BindingFact = [binding: 'p' | 'l' | 'f', scope: number, name: string, type: string, via?: 'n' | 'c'];

/**
 * A use inside a definition, as a tuple: `[kind, from, line, name, receiver?, args?]`.
 * - kind: `c` a call, `n` a construction (`new Foo()`, Java `new a.B()`: a call of the type), `d` a dynamic call
 *   (computed member `a[b]()`, getattr, eval: kept unresolved with reason `dynamic`; `name` is its text),
 *   `v` a reference to a function or method as a value (passed, assigned, returned), `t` a type reference (an
 *   annotation, a parameter/field/variable type);
 * - from: index in `defs` of the innermost enclosing symbol (uses at a file's top level are only counted, in
 *   `top_level_uses`);
 * - name: the called or referenced name (the last segment: `foo` for `a.b.foo()`); an explicit constructor call
 *   (`super(...)`, `this(...)`) is a call of the language's constructor name (or `constructor`) on `super`/`this`;
 * - receiver: the receiver/qualifier as written, absent or null for a bare name: `a.b` for `a.b.foo()`, `this`,
 *   `self`, `super`, `pkg` for `pkg.Func`, `Foo` for `Foo.staticMethod()`; a receiver that is itself a call keeps
 *   its `(...)` (`getX().run()` has receiver `getX()`);
 * - args: the number of arguments as written, where the language has overloads;
 * - argTypes: where the language has overloads and a call has arguments, each argument's type as far as its text shows
 *   (SymbolLanguage.argumentHint: `String` for a string literal, `Class` for `X.class`, `T` for `new T()` or `(T) x`),
 *   `=expr` for a name or expression the resolver types, '' when unknown; absent when every one is unknown.
 */
export type UseFact = [
  kind: 'c' | 'n' | 'd' | 'v' | 't',
  from: number,
  line: number,
  name: string,
  receiver?: string | null,
  args?: number,
  argTypes?: string[],
];

/**
 * A name bound by an import: `import { a as b } from './m'` gives local `b`, imported `a`; `import * as ns` and
 * `import m` give imported null (the module itself); Python `from m import x` gives imported `x`; Go
 * `import h "net/http"` gives local `h`, and without an alias local is null (the target package's clause name is
 * used). `spec`/`spec_kind` equal the ImportRef (FileAnalysis.imports) the file-level resolution resolved, so the
 * resolver finds its target files in SymbolFileInput.imports.
 */
export interface ImportBindingFact {
  local: string | null;
  /** The exported name as written, '*' for a wildcard/star import, or null for the module/namespace itself. */
  imported: string | null;
  spec: string;
  spec_kind?: string;
  line: number;
  /** A re-export (`export { a } from './m'`, `export * from './m'`): binds no local name, extends the exports. */
  reexport?: boolean;
}

/** The per-file record: FileAnalysis.symbol_facts. JSON-serialisable; depends on the file's content only. */
export interface SymbolFacts {
  version: number;
  /** The file's package/namespace clause where the language has one (Go `package x`, Java `package a.b`). */
  package?: string;
  /** JavaScript/TypeScript: the name exported as `default` (`export default class Foo`, `export default foo`). */
  default_export?: string;
  defs: DefinitionFact[];
  bindings: BindingFact[];
  uses: UseFact[];
  /** Uses at the file's top level (module code, no enclosing symbol): counted, not kept. */
  top_level_uses: number;
  imports: ImportBindingFact[];
  /**
   * Blocks that give a type named elsewhere its supertypes and members (Rust `impl Trait for T { ... }`): the type
   * as written (cleaned), the supertypes, and the keys of the methods defined in the block. Absent when none.
   */
  impls?: ImplFact[];
}

/** One implementation block (SymbolFacts.impls). */
export interface ImplFact {
  type: string;
  supertypes: SupertypeFact[];
  /** Keys (in this file) of the methods the block defines. */
  methods: SymbolKey[];
}

// ---------------------------------------------------------------------------------------------------------------
// The resolver (calling thread, once per sync): pure and deterministic
// ---------------------------------------------------------------------------------------------------------------

/** One import of a file as written, with the files the file-level resolution found for it ([] = external). */
export interface ResolvedImport {
  spec: string;
  kind?: string;
  targets: string[];
}

export interface SymbolFileInput {
  file_path: string;
  language: string;
  facts: SymbolFacts;
  imports: ResolvedImport[];
}

export interface ResolveInput {
  files: SymbolFileInput[];
}

export type SymbolEdgeLabel = 'calls' | 'inherits' | 'implements' | 'overrides' | 'references';

/**
 * How an edge was resolved (documented in docs/engine.md):
 * - `scip`: precise tier (confidence 1; written by the precise tier, never by this resolver);
 * - `scope`: same file, lexical scope (a local function, a sibling method by bare name where the language allows it);
 * - `import`: a name bound by an import (`from m import f; f()`, `import { f }`, Java single-type import);
 * - `qualified`: a module/package-qualified name (`pkg.Func`, `mod.f`, `ns.f` for `import * as ns`, Java
 *   same-package or fully qualified names);
 * - `self`: self/this/Go receiver/super inside the type, incl. through its supertypes when found directly there;
 * - `receiver_type`: a receiver whose type is declared or evident (typed parameter/field, constructor assignment);
 * - `hierarchy`: found by walking supertypes from the receiver's type;
 * - `unique_name`: the only definition of that name in the repository (confidence <= 0.5).
 */
export type Provenance =
  'scip' | 'scope' | 'import' | 'qualified' | 'self' | 'receiver_type' | 'hierarchy' | 'unique_name';

export interface SymbolEdge {
  label: SymbolEdgeLabel;
  from: SymbolRef;
  to: SymbolRef;
  provenance: Provenance;
  /** 0..1. */
  confidence: number;
  /** Sorted, distinct 1-based lines of the sites in `from`'s file (calls, references); [] for hierarchy edges. */
  lines: number[];
  /** Number of sites (>= lines.length: two calls on one line count twice); 1 for hierarchy edges. */
  count: number;
}

export type UnresolvedReason = 'unknown_name' | 'dynamic_receiver' | 'ambiguous' | 'dynamic';

/** A use the resolver did not guess: reads say "lower bound" for the symbols that hold some. */
export interface UnresolvedUse {
  from: SymbolRef;
  kind: 'call' | 'reference' | 'supertype';
  /** The callee as written: `a.b.foo`, `foo`, `Base`. */
  text: string;
  line: number;
  reason: UnresolvedReason;
}

export interface LanguageStats {
  files: number;
  definitions: number;
  /** Uses inside symbols (calls and references) considered for edges. */
  uses: number;
  /** Uses at module top level (no enclosing symbol): not edges. */
  top_level_uses: number;
  /** Edges by label and by provenance. */
  edges: Partial<Record<SymbolEdgeLabel, number>>;
  provenance: Partial<Record<Provenance, number>>;
  /** Calls/references resolved to outside the repository (an external import, a builtin): not unresolved. */
  external: number;
  unresolved: Partial<Record<UnresolvedReason, number>>;
}

export interface ResolveStats {
  by_language: Record<string, LanguageStats>;
  edges: number;
  unresolved: number;
  external: number;
}

export interface ResolveOutput {
  /** Sorted by (label, from, to); one edge per (label, from, to), its sites merged. */
  edges: SymbolEdge[];
  /** Sorted by (from, line, text, kind, reason). */
  unresolved: UnresolvedUse[];
  stats: ResolveStats;
}
