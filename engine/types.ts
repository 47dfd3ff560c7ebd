/**
 * The contract between the parse-and-chunk engine and its callers (the sync pipeline, benchmarks, tests).
 * The engine knows nothing of Temporal, HTTP or the database: it turns a checked-out tree into per-file analyses.
 */

export type FileType = 'source' | 'test' | 'config' | 'script' | 'doc' | 'data' | 'asset' | 'service';

export type ChunkType =
  | 'function'
  | 'method'
  | 'class'
  | 'interface'
  | 'struct'
  | 'enum'
  | 'impl'
  | 'trait'
  | 'module'
  | 'namespace'
  | 'heading'
  | 'paragraph'
  | 'line'
  | 'block';

export type SymbolKind = 'function' | 'class' | 'method';

export type IssueLevel = 'info' | 'warning' | 'error';

import type { SymbolDefKind, SymbolFacts, SymbolKey } from './symbols/types.ts';

/** One import as written in the source: a module path, file path, package or namespace, per the language. */
export interface ImportRef {
  spec: string;
  /** 1-based line of the import. */
  line: number;
  /** Language-specific flavour, e.g. 'require_relative', 'mod', 'from', 'include_system'. */
  kind?: string;
}

/** A problem found while analysing; the caller records it as a sync issue. */
export interface EngineIssue {
  level: IssueLevel;
  /** 'discovery' | 'parsing' | 'chunking' (the caller may add its own phases). */
  phase: string;
  /** Stable machine code, e.g. file_too_large, invalid_utf8, symlink_outside_tree, parse_error. */
  code: string;
  message: string;
  file_path?: string;
  context?: Record<string, unknown>;
}

/**
 * A symbol of a file: the spec's Symbol vertex (name, kind, line) plus its identity and shape for the symbol graph
 * (issue 28; see engine/symbols/types.ts). The engine sets every field it can for each symbol it extracts; the
 * optional ones are absent in analyses stored before the symbol graph existed, and `signature`/`doc` when the
 * definition has none.
 */
export interface SymbolInfo {
  name: string;
  kind: SymbolKind;
  /** 1-based line of the definition's name. */
  line: number;
  /** Stable key inside the file (container chain + name + kind, overloads disambiguated): SymbolKey. */
  key?: SymbolKey;
  /** The finer kind (function, method, constructor, class, interface, struct, trait, enum, type, ...). */
  symbol_kind?: SymbolDefKind;
  /** 1-based last line of the definition. */
  end_line?: number;
  /** Key of the enclosing symbol in the same file; null at the top level. */
  container?: SymbolKey | null;
  /** The declaration's head as written (up to its body), white space collapsed, at most 240 characters. */
  signature?: string;
  /** The doc comment / docstring, markers stripped, at most 400 characters. */
  doc?: string;
}

export interface ChunkInfo {
  /** 0-based, source order. */
  chunk_index: number;
  /** `# file: <path>\n# in: <ancestor chain>\n\n<body>` */
  content: string;
  /** 1-based, inclusive. */
  start_line: number;
  end_line: number;
  /** words x 1.3 (rounded up), breadcrumb included. */
  token_count: number;
  language: string;
  chunk_type: ChunkType;
  symbols: string[];
  /**
   * The chunk's identifier-aware search terms as a tsvector in PostgreSQL's binary form (lib/search-vector.ts),
   * computed with the chunk in the engine's parse threads so the sync's writer only passes it on to
   * content_chunks.search_terms (a binary parameter: PostgreSQL copies it rather than parsing text).
   */
  search_terms: Uint8Array;
}

/** A resolved import: an edge depends_on from the analysed file to another file of the same tree. */
export interface Dependency {
  /** Repository-relative path of the target file ('/' separators). */
  target_path: string;
  /** See docs/engine.md for the definition of the weight. */
  weight: number;
}

export interface FileAnalysis {
  /** Repository-relative path with '/' separators. */
  file_path: string;
  /** Display name (the base name). */
  name: string;
  type: FileType;
  /** One of the 15 programming languages, or 'markdown', 'text', or ''. */
  language: string;
  domain: string;
  size_bytes: number;
  line_count: number;
  /** SHA-256 hex of the raw bytes, 64 characters. */
  content_hash: string;
  imports_count: number;
  exports: string[];
  /** True for binary files: recorded, never chunked. */
  binary: boolean;
  symbols: SymbolInfo[];
  chunks: ChunkInfo[];
  dependencies: Dependency[];
  /** The file's imports as written (resolved into `dependencies`); kept so a later sync can resolve them again. */
  imports?: ImportRef[];
  /** Imports that point outside the repository (counted, not turned into edges). */
  external_imports: number;
  /**
   * The file's symbol facts for the repo-wide resolver (engine/symbols/types.ts): definitions with keys, supertypes,
   * typed bindings, call/reference sites, import bindings. A function of the content only (store per content hash).
   * Absent for files that are not parsed code (prose, binary, oversized, minified, unparseable).
   */
  symbol_facts?: SymbolFacts;
  /**
   * The same facts as JSON (what symbol_facts stores), instead of `symbol_facts`, when the analysis asked for it
   * (ParseOptions.symbolFactsJson).
   */
  symbol_facts_json?: string;
  /** The file-level embedding input, already prefixed with `search_document: ` and truncated to 1400 characters. */
  embedding_text: string;
  issues: EngineIssue[];
}

export interface TreeOptions {
  /** Limits the walk to these repository-relative paths (files or folders); all files when absent or empty. */
  includePaths?: string[];
  /** Tree-level issues that belong to no recorded file (e.g. a symlink pointing out of the tree). */
  onIssue?: (issue: EngineIssue) => void;
}

/** What the engine needs of an earlier analysis of a file to reuse it. */
export interface ReusableFile {
  content_hash: string;
  language: string;
  imports: readonly ImportRef[];
}

/** A file whose content equals its earlier analysis: only its dependencies are recomputed for this tree. */
export interface ReusedFile {
  file_path: string;
  content_hash: string;
  dependencies: Dependency[];
  external_imports: number;
  /** Problems of resolving its imports against this tree (the file's own analysis issues are the caller's). */
  issues: EngineIssue[];
}

export interface ParseOptions {
  /** Files above this many bytes are recorded without content analysis, with an issue. */
  maxFileBytes?: number;
  /** Worker threads for parsing; defaults to the number of cores. */
  threads?: number;
  /**
   * Files analysed before (by path): a discovered file whose content hash equals the known one is not analysed
   * again; its stored imports are resolved against this tree and it is reported through `onReused` instead of
   * being yielded.
   */
  reuse?: ReadonlyMap<string, ReusableFile>;
  onReused?: (file: ReusedFile) => void;
  /**
   * Paths whose content is known to equal their `reuse` entry's (the caller compared git trees): reused without
   * reading or hashing the file.
   */
  unchanged?: ReadonlySet<string>;
  /**
   * False leaves out the symbol facts (`symbol_facts`, the symbol graph's input, issue 28): the files' symbols keep
   * their keys, only the facts query's patterns that decide keys run. Default true.
   */
  symbolFacts?: boolean;
  /**
   * True hands each file's symbol facts over as JSON (`symbol_facts_json`) instead of `symbol_facts`: made in the
   * parse threads, one string to copy to the calling thread instead of thousands of small arrays (the sync stores
   * and resolves the JSON).
   */
  symbolFactsJson?: boolean;
}

export type AnalyzeOptions = TreeOptions & ParseOptions;

/** A file found by the walk (repository-relative path, the path to read, its size). */
export interface DiscoveredFile {
  path: string;
  absolute: string;
  size: number;
}

/**
 * A checked-out tree, walked once: its files in sorted order, the tree-level issues of the walk, and the index
 * imports are resolved against (opaque to callers). Parse it whole or in slices of `files` with `analyzeFiles`.
 */
export interface Tree {
  root: string;
  files: readonly DiscoveredFile[];
  issues: readonly EngineIssue[];
  readonly repo: unknown;
}

export interface Engine {
  /** Walks the tree and indexes it for import resolution (synchronous, on the calling thread). */
  openTree(root: string, options?: TreeOptions): Tree;
  /**
   * The walk of `tree` after only the content of `changed` files changed on disk (no file added, removed, renamed or
   * retyped): the same files and index, their sizes read again (and those of symlinked files). Null when the index
   * read one of them (a go.mod, package.json, ...) or a file cannot be read: walk again with openTree.
   */
  refreshTree(tree: Tree, changed: ReadonlySet<string>): Tree | null;
  /** Streams one analysis per given file of the tree (imports resolved against the whole tree). */
  analyzeFiles(tree: Tree, files: readonly DiscoveredFile[], options?: ParseOptions): AsyncIterable<FileAnalysis>;
  /** Streams one analysis per recorded file; order is not guaranteed. Never throws for a bad file. */
  analyzeTree(root: string, options?: AnalyzeOptions): AsyncIterable<FileAnalysis>;
  /** Stops the worker threads. */
  close(): Promise<void>;
}
