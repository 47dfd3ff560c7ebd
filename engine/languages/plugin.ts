import type { ChunkType, ImportRef } from '../types.ts';
import type { RepoIndex } from '../resolve/repo-index.ts';

// ImportRef lives with the engine's other shapes (types.ts names it in FileAnalysis); plugins take it from here too.
export type { ImportRef } from '../types.ts';

/** A capture of a query match, reduced to what plugins need (worker side). */
export interface CaptureView {
  name: string;
  text: string;
  row: number;
  /** Row of the node's last character (set for the file's imports query; optional for other producers of views). */
  endRow?: number;
  /** Type of the captured node. */
  type: string;
}

/** A definition found by the language's query. */
export interface DefinitionView {
  name: string;
  chunkType: ChunkType;
  /** Node type of the definition (e.g. 'function_declaration'). */
  nodeType: string;
  /** Source text of the definition's first line, for visibility checks. */
  firstLine: string;
  /** True when no other definition of a class, function or method encloses it. */
  topLevel: boolean;
}

export interface LanguagePlugin {
  /** The language id written to file records (e.g. 'typescript'). */
  id: string;
  /** Lower-case file extensions with the dot. */
  extensions: readonly string[];
  /** Interpreter names recognised in a `#!` line of an extension-less file. */
  interpreters?: readonly string[];
  /** The query file under engine/queries/. */
  queryFile: string;
  /** Loads the tree-sitter grammar; called at most once per thread. The path selects a dialect (e.g. TSX). */
  grammar(path: string): Promise<unknown>;
  /** Grammar variant key for a path (default: one grammar per plugin). */
  dialect?(path: string): string;
  /** Turns the captures of one `@import` match into imports; the default reads `import.source`, unquoted. */
  readImport?(captures: CaptureView[]): ImportRef[];
  /**
   * Rewrites the file's imports once all matches are read, with the file's lines at hand: for what one match cannot
   * see (a macro defined elsewhere in the file, an attribute on the line above, an include the grammar could not
   * place). Must keep the order of the imports it keeps.
   */
  finishImports?(imports: ImportRef[], lines: readonly string[]): ImportRef[];
  /**
   * Lets the query skip the walk of large top-level nodes (see parse.ts `queryMatches`): a top-level node of one of
   * `types`, free of syntax errors, can hold a node the query starts at (other than itself) only where `word` occurs
   * in its text after its first character. Go: only a type declaration can sit inside a function, method, var, const
   * or type declaration, and it starts with the keyword `type`. A wrong rule here loses definitions silently, so a
   * language sets it only with an argument from its grammar and a check of the output over a large corpus.
   */
  queryPrune?: { types: readonly string[]; word: string };
  /**
   * Known gaps of the grammar that valid code falls into: given the text of a file whose tree has a syntax error,
   * a text of the same length with the same line breaks in which those constructs are written so that the grammar
   * parses them (e.g. an explicit `;` in white space where the language's rule inserts one), or null when nothing
   * applies. The engine parses the repaired text and keeps its tree only when that tree has no error; everything
   * else (names, chunks, lines) is read from the original text, so a repair may only touch white space and
   * keywords whose removal the language's rules allow.
   */
  repairText?(text: string): string | null;
  /** Whether a definition is visible outside its file; used when the query has no `@export.name` captures. */
  isExported?(def: DefinitionView): boolean;
  /**
   * Resolves an import of `from` to files of the repository. An empty array means the import points outside the
   * repository (counted, not an edge).
   */
  resolve(ref: ImportRef, from: string, repo: RepoIndex): string[];
}

/** Strips one level of quotes, backticks or angle brackets. */
export function unquote(text: string): string {
  const t = text.trim();
  if (t.length >= 2) {
    const a = t[0];
    const b = t[t.length - 1];
    if ((a === '"' || a === "'" || a === '`') && b === a) return t.slice(1, -1);
    if (a === '<' && b === '>') return t.slice(1, -1);
  }
  return t;
}

/** Whether one of `modifiers` appears on the definition's first line before its name (e.g. `private class X`). */
export function hasModifierBeforeName(def: DefinitionView, modifiers: readonly string[]): boolean {
  const at = def.firstLine.indexOf(def.name);
  const head = at === -1 ? def.firstLine : def.firstLine.slice(0, at);
  return modifiers.some((m) => new RegExp(`\\b${m}\\b`).test(head));
}

export function defaultReadImport(captures: CaptureView[]): ImportRef[] {
  return captures
    .filter((c) => c.name === 'import.source')
    .map((c) => ({ spec: unquote(c.text), line: c.row + 1 }))
    .filter((r) => r.spec.length > 0);
}
