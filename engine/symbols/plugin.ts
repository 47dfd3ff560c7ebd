import type { CaptureView, ImportRef } from '../languages/plugin.ts';
import type { ImportBindingFact } from './types.ts';

/**
 * The per-language part of the symbol graph (issue 28): what the parse threads extract (a query file under
 * engine/queries/symbols/ plus a few text rules) and how the resolver reads the language's scopes. Adding a
 * language: a query file, a SymbolLanguage here (engine/symbols/langs/), one line in engine/symbols/registry.ts.
 *
 * ## Captures of a symbols query (one pattern = one fact; positions decide the enclosing definition)
 * Uses (the enclosing symbol is the innermost definition of the file's defs query around the first capture):
 * - `@call.name` (the called name's node) with optional `@call.receiver` (the receiver/qualifier expression) and
 *   `@call.args` (the argument list: its named children are counted, for overloads). `@call.new` on the pattern
 *   marks a construction (`new Foo()`, Java `new a.B()`; the name may then be a qualified/generic type, cleaned by
 *   `cleanType`). `@call.super`/`@call.this` on the pattern mark an explicit constructor call (`super(...)`,
 *   `this(...)`). `@call.dynamic` (on any node of the pattern) marks a dynamic call (computed member, getattr):
 *   kept unresolved with reason `dynamic`; its text is that node's.
 * - `@value.name` (+ `@value.receiver`): a name used as a value (a function passed or assigned); dropped when it
 *   names a local of the enclosing definitions, resolved only when it resolves to a function or method.
 * - `@type.expr`: a type as written (annotation, parameter/field/variable type); `cleanType` turns it into names.
 * Definitions (assigned to the innermost definition around the capture):
 * - `@super.extends` / `@super.implements`: a supertype as written (the innermost definition must be the type).
 * - `@def.receiver`: Go's receiver type (the method's container); `@def.self`: the receiver's name.
 * - `@def.returns`: the declared result type; `@def.params`: the parameter list (arity, overload keys);
 *   `@def.static`: a static/class-level member.
 * Bindings (scope = the innermost definition around the name):
 * - `@bind.param` / `@bind.local` / `@bind.field` on the bound name, with one of `@bind.type` (declared type),
 *   `@bind.new` (a construction: the type) or `@bind.call` (a call: the callee, whose class or declared result
 *   type the resolver reads). A `@bind.local` whose scope is a class-like definition is a field.
 * - `@local`: a name declared in a function without a known type (parameters, assignments, loop variables): it
 *   shadows outer names, so a bare call of it is dynamic and a value use of it is no symbol use.
 * Imports and the package:
 * - `@import` patterns: turned into ImportBindingFacts by `readImportBindings` (same spec as the ImportRefs).
 * - `@package.name`: the package clause (Go `package x`, Java `package a.b`).
 */
export interface SymbolLanguage {
  /** Language id (the LanguagePlugin's). */
  id: string;
  /** Query files under engine/queries/symbols/ for a grammar dialect (e.g. TSX adds JSX patterns). */
  queryFiles(dialect: string): string[];
  /** Names of the current instance (`this`, `self`); `super` names the supertypes. */
  selfNames: readonly string[];
  /**
   * A package is its name alone, whatever the folders (C# namespaces, Kotlin and Scala packages): files declaring
   * the same package share its top-level names, a wildcard import of a package opens it by name, and code in
   * package a.b.c also sees a.b and a (C#).
   */
  packageByName?: boolean;
  /**
   * A type's definition may be split over files of its package (Ruby reopened classes, C# partial classes, Swift
   * extensions): members and supertypes of every definition with the same key in the package count.
   */
  openClasses?: boolean;
  /**
   * Qualifiers may name namespaces the resolver does not model (C++ `ns::f`, `ns::T::m`): a qualifier whose head is
   * unknown is tried without its leading segments.
   */
  namespaceQualifiers?: boolean;
  /** A type's members include those of the same-named object beside it (Scala companion objects). */
  companionObjects?: boolean;
  /**
   * The package key of a file (default: its directory, or only its package clause with packageByName); Rust: the
   * crate's `src/` folder. Same key = same package.
   */
  packageOf?(path: string): string;
  /** Top-level names of other files of the package are visible by bare name (default true; Rust: false). */
  packageTopLevel?: boolean;
  /** An import naming a module resolves to that module's file (Rust `use crate::util;` binds the module util.rs). */
  modulesAreFiles?: boolean;
  /** The type name a container that is no symbol stands for (Rust `impl<T> Foo<T>` -> `Foo`), for keys and containers. */
  containerName?(name: string): string;
  /** Maps import bindings to the file's ImportRefs once the language's finishImports rewrote them (Rust). */
  finishBindings?(bindings: ImportBindingFact[], imports: readonly ImportRef[]): ImportBindingFact[];
  /** Other names of `super` (C# `base`); the resolver reads them as `super`. */
  superNames?: readonly string[];
  /**
   * The supertype list does not say which entry is a class and which an interface (C#, Kotlin, Swift, Scala): a
   * non-interface definition whose supertype resolves to an interface, protocol or trait `implements` it.
   */
  implementsByTargetKind?: boolean;
  /**
   * Rewrites a receiver as written into the resolver's dotted form (`a::b` -> `a.b`, `$this->x` -> `this.x`), or null
   * for a receiver the resolver cannot read (kept as written then).
   */
  normalizeReceiver?(text: string): string;
  /** Rewrites a bound name as written to the name receivers use (Ruby `@x` -> `x`, read as `this.x`). */
  normalizeName?(text: string): string;
  /** Bare names reach members of the enclosing type and its supertypes (Java, C#, Kotlin: implicit `this`). */
  bareMembers: boolean;
  /** Definitions of one name in one container are overloads told apart by parameter types (Java, C#, C++...). */
  overloads: boolean;
  /**
   * Files of one directory that declare the same package share its top-level names (Go: functions, types, vars;
   * Java: types).
   */
  packageScope: boolean;
  /** The name a constructor method has (`__init__`, `constructor`); null where constructors are their own node. */
  constructorName: string | null;
  /**
   * What a construction (`Foo()`, `new Foo()`) calls: the class, or its constructor definition when it has one (then
   * the class). As the precise indexers see it: scip-java and scip-typescript refer to the constructor a class declares
   * (scip-typescript: the class when it declares none), scip-python to the class.
   */
  constructionTarget: 'class' | 'constructor';
  /**
   * Only `new T()` constructs (JavaScript, TypeScript): a plain call or a JSX element (`<Panel />`, which passes the
   * component to the JSX factory as a value) that names a class refers to the class, not to its constructor, as
   * TypeScript's call hierarchy and scip-typescript see it. Absent: a call of a type constructs it (Swift `T(...)`).
   */
  constructsWithNew?: boolean;
  /** The first parameter of a method that is the instance (Python `self`/`cls`): not counted in the arity. */
  instanceParam: boolean;
  /** Bare names of the language's builtins and standard globals: calls of them are external. */
  builtins: ReadonlySet<string>;
  /**
   * Member names so common on the language's builtin types (list/str/dict, Array/Map/Promise, ...) that an untyped
   * receiver's call of one is never resolved by unique name.
   */
  commonMembers: ReadonlySet<string>;
  /**
   * May a call through a receiver of unknown type fall back to the only method of that name in the repository
   * (`unique_name`)? Absent: yes. Measured against the precise indexers (docs/benchmarks.md, "Symbol graph truth"),
   * the guess is wrong more often than right in Python (untyped parameters: pytest fixtures, callbacks) and Java
   * (chains through overloads, JDK methods such as `trim`), so those two keep such calls unresolved.
   */
  memberFallback?: boolean;
  /** The type names a type as written denotes (generics, pointers, optionals stripped; unions split); may be []. */
  cleanType(text: string): string[];
  /** The parameter types as written, for overload keys (`(int a, List<String> b)` -> ['int', 'List<String>']). */
  paramTypes?(paramsText: string): string[];
  /**
   * Languages with overloads: an argument's type as far as its syntax shows (node type and text): a literal's type,
   * `X.class` Class, `new T()` and `(T) x` T; `=expr` for a name or member chain the resolver types; '' unknown; null
   * for what is no argument (a comment). Absent: no argument types (overloads by arity only).
   */
  argumentHint?(nodeType: string, text: string): string | null;
  /** Number of parameters in a parameter list's text; null when it cannot tell. */
  arity(paramsText: string): number | null;
  /** Turns one `@import` match into bindings (spec/spec_kind as the language's LanguagePlugin.readImport writes). */
  readImportBindings(captures: CaptureView[]): ImportBindingFact[];
}

/** Splits a parameter or argument list's text at its top-level commas (outer parentheses removed). */
export function splitTopLevel(text: string): string[] {
  let t = text.trim();
  if (t.startsWith('(') && t.endsWith(')')) t = t.slice(1, -1);
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  let quote = '';
  for (let i = 0; i < t.length; i++) {
    const c = t[i]!;
    if (quote !== '') {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || c === "'" || c === '`') quote = c;
    else if (c === '(' || c === '[' || c === '{' || c === '<') depth++;
    else if (c === ')' || c === ']' || c === '}' || (c === '>' && t[i - 1] !== '=' && t[i - 1] !== '-')) depth--;
    else if (c === ',' && depth === 0) {
      out.push(t.slice(start, i).trim());
      start = i + 1;
    }
  }
  const last = t.slice(start).trim();
  if (last !== '' || out.length > 0) out.push(last);
  return out.filter((p) => p !== '');
}

/** Removes generic arguments (`<...>`) and white space: `Map<K, List<V>>` -> `Map`. */
export function stripGenerics(text: string): string {
  let out = '';
  let depth = 0;
  for (const c of text) {
    if (c === '<') depth++;
    else if (c === '>') depth = Math.max(0, depth - 1);
    else if (depth === 0 && !/\s/.test(c)) out += c;
  }
  return out;
}

/** Whether a cleaned type text is a plain (possibly qualified) name: `Foo`, `pkg.Foo`, `a.b.C`. */
export function isTypeName(text: string): boolean {
  return /^[\p{L}_$][\p{L}\p{N}_$]*(\.[\p{L}_$][\p{L}\p{N}_$]*)*$/u.test(text);
}
