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
export const SYMBOL_FACTS_VERSION = 1;

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
  /** The name of the enclosing type/namespace as written (Go receiver type, Rust impl type), or null. */
  container_name: string | null;
  line: number;
  end_line: number;
  /** Number of parameters as written (receiver and self/this excluded); null when unknown. */
  arity: number | null;
  /** Supertypes as written (types only). */
  supertypes: SupertypeFact[];
  /** Static/class-level member (`static`, `@staticmethod`, `@classmethod`): reached through the type, not `this`. */
  static?: boolean;
}

/**
 * A typed name visible in a scope: a typed parameter (`x: Foo`, `Foo x`, Go `x *Foo`), a local bound to a
 * constructor (`x = Foo()`, `const x = new Foo()`, `x := &Foo{}`, `x := NewFoo()` is NOT one), a declared local
 * (`var x Foo`, `Foo x = ...`, `let x: Foo`), or a field of a class (`this.x = new Foo()`, `private x: Foo`,
 * `self.x = Foo()`, Go struct field `x *Foo`).
 */
export interface BindingFact {
  /** The function/method whose body or parameters hold it; for a field, the key of its class; null at top level. */
  scope: SymbolKey | null;
  name: string;
  /** The type as written, generics, pointers and array markers stripped: `Foo`, `pkg.Foo`. */
  type: string;
  /** `param` | `local` | `field` (fields are reached as `this.x`/`self.x`, or `x` inside Java/C#/Go-like bodies). */
  binding: 'param' | 'local' | 'field';
  line: number;
}

/** A use inside a definition: a call, or a reference that is not a call (a function as a value, a type). */
export interface UseFact {
  kind: 'call' | 'reference';
  /** Key of the innermost enclosing symbol; null at the top level (module code: kept, counted, no edge). */
  from: SymbolKey | null;
  /** The called or referenced name (the last segment): `foo` for `a.b.foo()`. */
  name: string;
  /**
   * The receiver/qualifier as written, or null for a bare name: `a.b` for `a.b.foo()`, `this`, `self`, `super`,
   * `pkg` for `pkg.Func`, `Foo` for `Foo.staticMethod()` or `Foo::bar`. A receiver that is itself a call or an
   * index keeps its text with `()` / `[]` (`getX()`, `a[0]`): the resolver treats those as dynamic.
   */
  receiver: string | null;
  line: number;
  /** For calls: the number of arguments as written (overload choice); absent when unknown. */
  args?: number;
  /** For references: `type` (in an annotation/signature/new), `value` (a function or method used as a value). */
  ref?: 'type' | 'value';
  /** Dynamic by construction (getattr, reflection, eval, computed member `a[b]()`): kept unresolved, reason dynamic. */
  dynamic?: boolean;
}

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
}

/** The per-file record: FileAnalysis.symbol_facts. JSON-serialisable; depends on the file's content only. */
export interface SymbolFacts {
  version: number;
  /** The file's package/namespace clause where the language has one (Go `package x`, Java `package a.b`). */
  package?: string;
  defs: DefinitionFact[];
  bindings: BindingFact[];
  uses: UseFact[];
  imports: ImportBindingFact[];
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
