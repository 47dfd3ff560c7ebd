import Parser from 'tree-sitter';
import { readFileSync } from 'node:fs';
import type { LanguagePlugin } from './languages/plugin.ts';

/** A grammar and its compiled query, loaded once per thread and dialect. */
export interface LoadedLanguage {
  parser: Parser;
  query: Parser.Query;
}

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
      return { parser, query };
    })();
    cache.set(key, hit);
  }
  return hit;
}

/** Parsing stops after this long per file (then the file falls back to line chunking). */
export const PARSE_TIMEOUT_MS = 10_000;

/** Parses the text; returns null when parsing was halted by the timeout. */
export function parseText(lang: LoadedLanguage, text: string, timeoutMs = PARSE_TIMEOUT_MS): Parser.Tree | null {
  const deadline = Date.now() + timeoutMs;
  let calls = 0;
  // The typings say Tree, but a parse halted by the progress callback returns null.
  const tree: Parser.Tree | null = lang.parser.parse(text, null, {
    // Strings of 32 KiB or more need an explicit buffer size; one buffer for the whole text reads it in one go.
    bufferSize: Math.max(text.length + 1, 1024),
    progressCallback: () => (++calls & 1023) === 0 && Date.now() > deadline,
  });
  return tree ?? null;
}
