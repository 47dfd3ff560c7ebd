import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { errorText } from './error-text.ts';
import type Parser from 'tree-sitter';
import type { ChunkInfo, ChunkType, EngineIssue, FileAnalysis, SymbolInfo } from './types.ts';
import type { SymbolFacts } from './symbols/types.ts';
import { extractSymbols, specKind } from './symbols/extract.ts';
import { symbolLanguage } from './symbols/registry.ts';
import type { CaptureView, DefinitionView, ImportRef, LanguagePlugin } from './languages/plugin.ts';
import type { ChunkDef } from './chunk/ast.ts';
import { chunkAst, cursorWalker, defKey, rowOf, rowStarts } from './chunk/ast.ts';
import { lineSource, materialize } from './chunk/plan.ts';
import type { PlannedChunk } from './chunk/plan.ts';
import { chunkLines, chunkMarkdown, chunkText } from './chunk/prose.ts';
import { CHUNK_BUDGET_TOKENS } from './chunk/tokens.ts';
import { classify } from './classify.ts';
import { fileEmbeddingInput } from './embedding.ts';
import { defaultReadImport } from './languages/plugin.ts';
import { pluginById } from './languages/registry.ts';
import { loadLanguage, parseText, queryMatches } from './parse.ts';
import type { LoadedLanguage } from './parse.ts';
import { countLines, countLinesInBytes, decodeUtf8, isBinary, splitLines } from './text.ts';

/** Default size cap: larger files are recorded (hash, size, lines) without content analysis. */
export const DEFAULT_MAX_FILE_BYTES = 2 * 1024 * 1024;
/** A line longer than this marks a minified/generated file: it is chunked by lines, not parsed. */
export const MINIFIED_LINE_CHARS = 5_000;

export interface FileRequest {
  path: string;
  absolute: string;
  size: number;
  maxFileBytes: number;
  /** The content hash of an earlier analysis of this path: when the file still has it, it is not analysed again. */
  knownHash?: string;
  /** False: symbols (with their keys) but no symbol facts (the sync's `symbol_graph: false`). */
  symbolFacts?: boolean;
  /** True: the facts as JSON (`symbol_facts_json`) instead of `symbol_facts`. */
  factsJson?: boolean;
}

/** What the per-file analysis returns; the engine adds dependencies after resolving `imports` against the tree. */
export type FileResult = Omit<FileAnalysis, 'dependencies' | 'external_imports' | 'imports'> & {
  imports: ImportRef[];
  /** True when the content hash equals the request's knownHash: nothing else was analysed. */
  reused?: boolean;
};

const CLASS_LIKE = new Set<ChunkType>(['class', 'interface', 'struct', 'enum', 'trait', 'impl']);

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** The error without the worker's paths (error-text.ts). */
const message = errorText;

function hashAndCountStreaming(absolute: string): { hash: string; lines: number; size: number; binary: boolean } {
  const hash = createHash('sha256');
  const buf = Buffer.allocUnsafe(1 << 20);
  const fd = openSync(absolute, 'r');
  let lines = 0;
  let size = 0;
  let last = -1;
  let binary = false;
  try {
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      const view = buf.subarray(0, n);
      hash.update(view);
      size += n;
      for (let i = view.indexOf(10); i !== -1; i = view.indexOf(10, i + 1)) lines++;
      if (!binary && view.indexOf(0) !== -1) binary = true;
      last = view[n - 1]!;
    }
  } finally {
    closeSync(fd);
  }
  if (size > 0 && last !== 10) lines++;
  return { hash: hash.digest('hex'), lines: binary ? 0 : lines, size, binary };
}

interface CodeAnalysis {
  planned: PlannedChunk[];
  symbols: SymbolInfo[];
  facts?: SymbolFacts;
  exports: string[];
  imports: ImportRef[];
}

interface RawDef {
  name: string;
  chunkType: ChunkType;
  nodeType: string;
  startIndex: number;
  endIndex: number;
  row: number;
  nameRow: number;
}

/** Runs the language's query over the tree: definitions, imports and explicit exports. */
function extract(
  plugin: LanguagePlugin,
  lang: LoadedLanguage,
  tree: Parser.Tree,
  src: { path: string; lines: string[]; text: string; starts: Int32Array },
  symbolFacts: boolean,
): Omit<CodeAnalysis, 'planned'> & { defs: Map<string, ChunkDef> } {
  const rawDefs = new Map<string, RawDef>();
  const imports: ImportRef[] = [];
  const explicitExports: string[] = [];
  let sawExportCapture = false;
  const readImport = (views: CaptureView[]): ImportRef[] =>
    plugin.readImport ? plugin.readImport(views) : defaultReadImport(views);
  for (const match of queryMatches(lang, tree.rootNode, src.text)) {
    let defCap: Parser.QueryCapture | undefined;
    let nameCap: Parser.QueryCapture | undefined;
    let isImport = false;
    for (const cap of match.captures) {
      if (cap.name.startsWith('definition.')) defCap = cap;
      else if (cap.name === 'name') nameCap = cap;
      else if (cap.name === 'import') isImport = true;
      else if (cap.name === 'export.name') {
        sawExportCapture = true;
        explicitExports.push(cap.node.text);
      }
    }
    if (defCap && nameCap) {
      // Each property of a node is a native call (a position also allocates): read each once, rows from offsets.
      const node = defCap.node;
      const startIndex = node.startIndex;
      const nodeType = node.type;
      const key = defKey({ startIndex, type: nodeType });
      if (!rawDefs.has(key)) {
        const nameNode = nameCap.node;
        const nameStart = nameNode.startIndex;
        rawDefs.set(key, {
          name: src.text.slice(nameStart, nameNode.endIndex).replace(/\s+/g, ' '),
          chunkType: defCap.name.slice('definition.'.length) as ChunkType,
          nodeType,
          startIndex,
          endIndex: node.endIndex,
          row: rowOf(src.starts, startIndex),
          nameRow: rowOf(src.starts, nameStart),
        });
      }
    } else if (isImport) {
      const views: CaptureView[] = match.captures.map((c) => ({
        name: c.name,
        text: c.node.text,
        row: c.node.startPosition.row,
        endRow: c.node.endPosition.row,
        type: c.node.type,
      }));
      imports.push(...readImport(views));
    }
  }
  // Nesting: a function directly inside a class-like definition is a method; top level = no enclosing symbol.
  const ordered = [...rawDefs.values()].sort((a, b) => a.startIndex - b.startIndex || b.endIndex - a.endIndex);
  const stack: RawDef[] = [];
  const exportsByRule: string[] = [];
  const defs = new Map<string, ChunkDef>();
  const definitions: RawDef[] = [];
  for (const d of ordered) {
    while (stack.length > 0 && stack[stack.length - 1]!.endIndex <= d.startIndex) stack.pop();
    const parent = stack[stack.length - 1];
    let chunkType = d.chunkType;
    if (chunkType === 'function' && parent && CLASS_LIKE.has(parent.chunkType)) chunkType = 'method';
    const kind = specKind(chunkType);
    const topLevel = !stack.some((s) => specKind(s.chunkType) !== undefined);
    if (kind) {
      const view: DefinitionView = {
        name: d.name,
        chunkType,
        nodeType: d.nodeType,
        firstLine: src.lines[d.row] ?? '',
        topLevel,
      };
      if (topLevel && kind !== 'method' && (plugin.isExported?.(view) ?? true)) exportsByRule.push(d.name);
    }
    const label = `${chunkType} ${d.name}`;
    defs.set(`${d.startIndex}:${d.nodeType}`, { name: d.name, chunkType, row: d.row, label });
    const placed = { ...d, chunkType };
    definitions.push(placed);
    stack.push(placed);
  }
  const { symbols, facts } = extractSymbols(
    definitions,
    src,
    symbolLanguage(plugin.id),
    symbolFacts ? lang.symbolQuery : lang.symbolKeyQuery,
    tree.rootNode,
    plugin.id === 'python' ? 'colon' : 'brace',
    symbolFacts,
  );
  const exports = [...new Set(sawExportCapture ? explicitExports : exportsByRule)];
  const finished = plugin.finishImports ? plugin.finishImports(imports, src.lines) : imports;
  const symbolLang = symbolLanguage(plugin.id);
  if (facts && symbolLang?.finishBindings) facts.imports = symbolLang.finishBindings(facts.imports, finished);
  return { symbols, exports, imports: finished, defs, ...(facts ? { facts } : {}) };
}

/** First row of an ERROR or MISSING node, for the syntax-error issue. */
function firstErrorRow(node: Parser.SyntaxNode): number | null {
  const cursor = node.walk();
  for (;;) {
    const n = cursor.currentNode;
    if (n.type === 'ERROR' || n.isMissing) return n.startPosition.row;
    if (n.hasError && cursor.gotoFirstChild()) continue;
    while (!cursor.gotoNextSibling()) {
      if (!cursor.gotoParent()) return null;
    }
  }
}

/** The stand-in result for a file whose content is unchanged: the caller reuses its earlier analysis. */
function reusedResult(path: string, content_hash: string, size_bytes: number): FileResult {
  return {
    file_path: path,
    name: baseName(path),
    type: 'source',
    language: '',
    domain: '',
    size_bytes,
    line_count: 0,
    content_hash,
    imports_count: 0,
    exports: [],
    binary: false,
    symbols: [],
    chunks: [],
    imports: [],
    embedding_text: '',
    issues: [],
    reused: true,
  };
}

/**
 * Analyses one file. Never throws: every failure becomes an issue and a well-formed record (line chunking when
 * parsing fails, no chunks for binary, unreadable or oversized files).
 */
export async function analyzeFile(
  req: FileRequest,
  options: { parse?: boolean; issues?: EngineIssue[] } = {},
): Promise<FileResult> {
  const issues: EngineIssue[] = options.issues ?? [];
  const issue = (
    level: EngineIssue['level'],
    phase: string,
    code: string,
    msg: string,
    context?: Record<string, unknown>,
  ): void => {
    issues.push({ level, phase, code, message: msg, file_path: req.path, ...(context ? { context } : {}) });
  };
  const record = (
    fields: Partial<FileResult> & Pick<FileResult, 'type' | 'language' | 'content_hash' | 'size_bytes'>,
    text: string,
  ): FileResult => ({
    file_path: req.path,
    name: baseName(req.path),
    domain: '',
    line_count: 0,
    imports_count: 0,
    exports: [],
    binary: false,
    symbols: [],
    chunks: [],
    imports: [],
    issues,
    ...fields,
    embedding_text: fileEmbeddingInput({ path: req.path, type: fields.type, language: fields.language, content: text }),
  });

  if (req.size > req.maxFileBytes) {
    try {
      const s = hashAndCountStreaming(req.absolute);
      if (req.knownHash !== undefined && req.knownHash === s.hash) return reusedResult(req.path, s.hash, s.size);
      const c = classify(req.path, '', s.binary, s.size === 0);
      issue(
        'warning',
        'parsing',
        'file_too_large',
        `file has ${s.size} bytes, above the cap of ${req.maxFileBytes}; recorded without content`,
        {
          size_bytes: s.size,
          max_file_bytes: req.maxFileBytes,
        },
      );
      return record({ ...c, content_hash: s.hash, size_bytes: s.size, line_count: s.lines, binary: s.binary }, '');
    } catch (err) {
      issue('error', 'parsing', 'unreadable_file', message(err));
      return record({ ...classify(req.path, '', false, true), content_hash: '', size_bytes: req.size }, '');
    }
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(req.absolute);
  } catch (err) {
    issue('error', 'parsing', 'unreadable_file', message(err));
    return record({ ...classify(req.path, '', false, true), content_hash: '', size_bytes: req.size }, '');
  }
  const content_hash = createHash('sha256').update(bytes).digest('hex');
  const size_bytes = bytes.length;
  if (req.knownHash !== undefined && req.knownHash === content_hash)
    return reusedResult(req.path, content_hash, size_bytes);
  if (isBinary(bytes)) {
    const c = classify(req.path, '', true, false);
    return record({ ...c, content_hash, size_bytes, binary: true, line_count: 0 }, '');
  }
  const decoded = decodeUtf8(bytes);
  const text = decoded.text;
  if (decoded.invalidUtf8) {
    issue('warning', 'parsing', 'invalid_utf8', 'file is not valid UTF-8; invalid sequences were replaced by U+FFFD', {
      line_count: countLinesInBytes(bytes),
    });
  }
  const c = classify(req.path, text.slice(0, 4096), false, text.length === 0);
  const lines = splitLines(text);
  const base = { ...c, content_hash, size_bytes, line_count: countLines(text) };
  if (lines.length === 0) return record(base, text);
  const src = lineSource(req.path, lines);
  const rootLabel = baseName(req.path);
  const plugin = pluginById(c.language);
  let planned: PlannedChunk[];
  let symbols: SymbolInfo[] = [];
  let exports: string[] = [];
  let imports: ImportRef[] = [];
  let facts: SymbolFacts | undefined;
  try {
    if (plugin && options.parse === false) planned = chunkLines(src, CHUNK_BUDGET_TOKENS);
    else if (plugin) {
      const longest = lines.reduce((m, l) => Math.max(m, l.length), 0);
      const code =
        longest > MINIFIED_LINE_CHARS
          ? null
          : await analyzeCode(plugin, text, src, rootLabel, issue, req.symbolFacts !== false);
      if (code === null) {
        if (longest > MINIFIED_LINE_CHARS) {
          issue('info', 'parsing', 'minified_file', `a line of ${longest} characters: not parsed, chunked by lines`, {
            longest_line: longest,
          });
        }
        planned = chunkLines(src, CHUNK_BUDGET_TOKENS);
      } else {
        ({ planned, symbols, exports, imports, facts } = code);
      }
    } else if (c.language === 'markdown') planned = chunkMarkdown(src, CHUNK_BUDGET_TOKENS);
    else planned = chunkText(src, CHUNK_BUDGET_TOKENS);
  } catch (err) {
    issue('error', 'chunking', 'analysis_failed', `analysis failed, chunked by lines: ${message(err)}`);
    planned = chunkLines(src, CHUNK_BUDGET_TOKENS);
    symbols = [];
    exports = [];
    imports = [];
    facts = undefined;
  }
  const chunks: ChunkInfo[] = materialize(src, planned, c.language);
  return record(
    {
      ...base,
      symbols,
      exports,
      imports,
      imports_count: imports.length,
      chunks,
      ...(facts ? (req.factsJson ? { symbol_facts_json: JSON.stringify(facts) } : { symbol_facts: facts }) : {}),
    },
    text,
  );
}

async function analyzeCode(
  plugin: LanguagePlugin,
  text: string,
  src: ReturnType<typeof lineSource>,
  rootLabel: string,
  issue: (
    level: EngineIssue['level'],
    phase: string,
    code: string,
    msg: string,
    context?: Record<string, unknown>,
  ) => void,
  symbolFacts: boolean,
): Promise<CodeAnalysis | null> {
  const lang = await loadLanguage(plugin, src.path);
  let tree: Parser.Tree | null;
  try {
    tree = parseText(lang, text);
  } catch (err) {
    issue(
      'warning',
      'parsing',
      'parse_failed',
      `tree-sitter could not parse the file, chunked by lines: ${message(err)}`,
    );
    return null;
  }
  if (tree === null) {
    issue('warning', 'parsing', 'parse_timeout', 'parsing took too long, chunked by lines');
    return null;
  }
  if (tree.rootNode.hasError && plugin.repairText) {
    // The grammar's known gaps (see LanguagePlugin.repairText): the repaired text's tree only when it is clean.
    const repaired = plugin.repairText(text);
    const second = repaired === null ? null : parseText(lang, repaired);
    if (second && !second.rootNode.hasError) tree = second;
  }
  if (tree.rootNode.hasError) {
    const row = firstErrorRow(tree.rootNode);
    issue(
      'warning',
      'parsing',
      'syntax_error',
      `syntax error${row === null ? '' : ` at line ${row + 1}`}; symbols and chunks are best effort`,
      {
        line: row === null ? null : row + 1,
      },
    );
  }
  const starts = rowStarts(src.lines);
  const found = extract(plugin, lang, tree, { path: src.path, lines: src.lines, text, starts }, symbolFacts);
  const planned = chunkAst(src, cursorWalker(tree.walk(), starts), found.defs, rootLabel, CHUNK_BUDGET_TOKENS);
  return {
    planned,
    symbols: found.symbols,
    exports: found.exports,
    imports: found.imports,
    ...(found.facts ? { facts: found.facts } : {}),
  };
}
