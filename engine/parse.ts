import Parser from 'tree-sitter';
import { readFileSync } from 'node:fs';
import type { LanguagePlugin } from './languages/plugin.ts';
import { symbolLanguage } from './symbols/registry.ts';

/** A grammar and its compiled query, loaded once per thread and dialect. */
export interface LoadedLanguage {
  parser: Parser;
  query: Parser.Query;
  /**
   * Node types every pattern of the query starts at; null when some pattern starts at a wildcard, an alternation or
   * a node type as common as a call (then the query walks the tree itself).
   */
  roots: string[] | null;
  /** The plugin's `queryPrune`, for queryMatches; null without one (or when roots is null). */
  prune: { types: Set<string>; roots: Set<string>; word: string } | null;
  /** The symbol facts query (engine/queries/symbols/, issue 28), or null for a language without one. */
  symbolQuery: Parser.Query | null;
  /**
   * The facts query's patterns that decide symbol keys (`@def.receiver`, and `@def.params` where the language keys
   * overloads by parameter types), for analyses without facts; null when none does.
   */
  symbolKeyQuery: Parser.Query | null;
}

/**
 * The top-level patterns of a query source, each with the captures and quantifiers that follow its closing bracket
 * (comments dropped).
 */
export function topLevelPatterns(source: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = -1;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === ';') {
      while (i < source.length && source[i] !== '\n') i++;
    } else if (c === '"') {
      if (depth === 0 && start === -1) start = i;
      for (i++; i < source.length && source[i] !== '"'; i++) if (source[i] === '\\') i++;
    } else if (c === '(' || c === '[') {
      if (depth === 0 && start !== -1) {
        out.push(source.slice(start, i).trim());
        start = -1;
      }
      if (depth === 0) start = i;
      depth++;
    } else if (c === ')' || c === ']') {
      depth--;
    } else if (depth === 0 && start !== -1 && c === '\n') {
      out.push(source.slice(start, i).trim());
      start = -1;
    }
  }
  if (start !== -1) out.push(source.slice(start).trim());
  return out.filter((p) => p !== '');
}

/** The patterns of a symbols query source that decide keys (see LoadedLanguage.symbolKeyQuery), or null. */
export function symbolKeyPatterns(source: string, overloads: boolean): string | null {
  const keep = topLevelPatterns(source).filter(
    (p) => /@def\.receiver\b/.test(p) || (overloads && /@def\.params\b/.test(p)),
  );
  return keep.length === 0 ? null : keep.join('\n');
}

/**
 * The node type each top-level pattern of a query source starts at: `(type ...)` gives `type`. Returns null when a
 * pattern starts otherwise (`(_ ...)`, `[...]`, a bare string or field), so the caller runs the query as a whole.
 */
export function patternRoots(source: string): string[] | null {
  const roots = new Set<string>();
  let depth = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === ';') {
      while (i < source.length && source[i] !== '\n') i++;
    } else if (c === '"') {
      if (depth === 0) return null;
      for (i++; i < source.length && source[i] !== '"'; i++) if (source[i] === '\\') i++;
    } else if (c === '(' || c === '[') {
      if (depth === 0) {
        if (c === '[') return null;
        const m = /^\(\s*([A-Za-z][A-Za-z0-9_]*)/.exec(source.slice(i, i + 200));
        if (!m) return null;
        roots.add(m[1]!);
      }
      depth++;
    } else if (c === ')' || c === ']') depth--;
    else if (depth === 0 && !/[\s@.A-Za-z0-9_?*+!]/.test(c)) return null;
  }
  return roots.size > 0 ? [...roots] : null;
}

/** Node types too common in code to be worth finding one by one (see queryMatches). */
const FREQUENT_NODE_TYPES = new Set(['call_expression', 'call', 'command']);

const cache = new Map<string, Promise<LoadedLanguage>>();

export function loadLanguage(plugin: LanguagePlugin, path: string): Promise<LoadedLanguage> {
  const key = `${plugin.id}:${plugin.dialect?.(path) ?? ''}`;
  let hit = cache.get(key);
  if (!hit) {
    hit = (async () => {
      const grammar = await plugin.grammar(path);
      const parser = new Parser();
      parser.setLanguage(grammar as Parser.Language);
      const source = readFileSync(new URL(`./queries/${plugin.queryFile}`, import.meta.url), 'utf8');
      const query = new Parser.Query(grammar as Parser.Language, source);
      const roots = patternRoots(source);
      // Patterns rooted at call nodes would make one query run per call: slower than one walk (measured on JS/TS).
      const frequent = roots?.some((r) => FREQUENT_NODE_TYPES.has(r)) ?? true;
      const usable = frequent ? null : roots;
      const prune =
        usable && plugin.queryPrune
          ? { types: new Set(plugin.queryPrune.types), roots: new Set(usable), word: plugin.queryPrune.word }
          : null;
      const symbolLang = symbolLanguage(plugin.id);
      const symbolFiles = symbolLang?.queryFiles(plugin.dialect?.(path) ?? '') ?? [];
      const symbolSource = symbolFiles
        .map((f) => readFileSync(new URL(`./queries/symbols/${f}`, import.meta.url), 'utf8'))
        .join('\n');
      const symbolQuery = symbolFiles.length === 0 ? null : new Parser.Query(grammar as Parser.Language, symbolSource);
      const keySource = symbolLang ? symbolKeyPatterns(symbolSource, symbolLang.overloads) : null;
      const symbolKeyQuery = keySource === null ? null : new Parser.Query(grammar as Parser.Language, keySource);
      return { parser, query, roots: usable, prune, symbolQuery, symbolKeyQuery };
    })();
    cache.set(key, hit);
  }
  return hit;
}

/**
 * The query's matches over the whole tree. When every pattern starts at a known node type, the nodes of those
 * types are found first (a plain native walk) and the query runs on each of them at start depth 0 only: the same
 * matches, in document order, for about half the cost of the query cursor walking every node itself. `text` is the
 * parsed text (for the language's `queryPrune` rule).
 */
export function queryMatches(lang: LoadedLanguage, root: Parser.SyntaxNode, text: string): Parser.QueryMatch[] {
  if (lang.roots === null) return lang.query.matches(root);
  const out: Parser.QueryMatch[] = [];
  for (const node of rootNodes(lang, lang.roots, root, text)) {
    for (const m of lang.query.matches(node, { maxStartDepth: 0 })) out.push(m);
  }
  return out;
}

/** An identifier character for nextWord: ASCII letters, digits, `_`, and anything beyond ASCII. */
function identifierChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c >= 128;
}

/**
 * The next offset at or after `from` where `word` occurs as a whole word (no identifier character just before or
 * after it), or -1. A keyword is always a whole word in code without syntax errors, so only these occurrences can
 * start a pruned node's nested root; occurrences inside identifiers (Go: `types`, `rtype`, `_type`, `typeName`) are
 * skipped, and with them the walks of most of the function bodies that a plain search would have opened (the Go
 * compiler, runtime and reflection code is full of such names). Characters above ASCII count as identifier
 * characters: in valid code a keyword sits between ASCII white space or punctuation (Go allows no other), and a tree
 * with a syntax error is walked whole.
 */
export function nextWord(text: string, word: string, from: number): number {
  for (let at = text.indexOf(word, from); at !== -1; at = text.indexOf(word, at + 1)) {
    const end = at + word.length;
    if (
      (at === 0 || !identifierChar(text.charCodeAt(at - 1))) &&
      (end >= text.length || !identifierChar(text.charCodeAt(end)))
    )
      return at;
  }
  return -1;
}

/**
 * The nodes of the query's root types, in document order. With a `queryPrune` rule, a top-level node the rule
 * covers is not walked when its text holds the rule's word (as a whole word, see nextWord) nowhere after its first
 * character (it is itself a root when its type is one): most of a Go file is function bodies without a nested type
 * declaration. A tree with a syntax error anywhere is walked whole. The top level is read through a cursor, and each
 * walked node is one native call (which converts the type names each time, so leaves such as comments are not
 * walked but only looked at).
 */
function rootNodes(lang: LoadedLanguage, roots: string[], root: Parser.SyntaxNode, text: string): Parser.SyntaxNode[] {
  const prune = lang.prune;
  if (prune === null || root.hasError) return root.descendantsOfType(roots);
  const out: Parser.SyntaxNode[] = [];
  if (prune.roots.has(root.type)) out.push(root);
  const { word } = prune;
  let next = nextWord(text, word, 0);
  const cursor = root.walk();
  if (!cursor.gotoFirstChild()) return out;
  do {
    const type = cursor.nodeType;
    const start = cursor.startIndex;
    while (next !== -1 && next <= start) next = nextWord(text, word, next + 1);
    if (prune.types.has(type) && (next === -1 || next + word.length > cursor.endIndex)) {
      if (prune.roots.has(type)) out.push(cursor.currentNode);
    } else if (!cursor.gotoFirstChild()) {
      if (prune.roots.has(type)) out.push(cursor.currentNode);
    } else {
      cursor.gotoParent();
      for (const node of cursor.currentNode.descendantsOfType(roots)) out.push(node);
    }
  } while (cursor.gotoNextSibling());
  return out;
}

/** Parsing stops after this long per file (then the file falls back to line chunking). */
export const PARSE_TIMEOUT_MS = 10_000;

/**
 * Parses the text; returns null when parsing was halted by the timeout. The timeout is tree-sitter's own clock check,
 * not a JS progress callback: the parser would call that back every few hundred steps, which cost ~15 % of the
 * parse's CPU (measured on the Go standard library). A halted parse is reset, or the parser's next call would resume
 * it instead of parsing the next text.
 */
export function parseText(lang: LoadedLanguage, text: string, timeoutMs = PARSE_TIMEOUT_MS): Parser.Tree | null {
  lang.parser.setTimeoutMicros(Math.max(1, Math.round(timeoutMs * 1000)));
  // The typings say Tree, but a parse halted by the timeout returns null.
  // Strings of 32 KiB or more need an explicit buffer size; one buffer for the whole text reads it in one go.
  const tree: Parser.Tree | null = lang.parser.parse(text, null, { bufferSize: Math.max(text.length + 1, 1024) });
  if (!tree) lang.parser.reset();
  return tree ?? null;
}
