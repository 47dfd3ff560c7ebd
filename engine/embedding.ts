/** Embedding inputs of spec processing rules 6 and 7, and the chunks' key texts. */
import { identifierWords, splitIdentifiers } from '../lib/search-terms.ts';

export const EMBEDDING_PREFIX = 'search_document: ';
export const EMBEDDING_MAX_CHARS = 1400;
export const FILE_EMBEDDING_LINES = 100;

function truncate(text: string): string {
  if (text.length <= EMBEDDING_MAX_CHARS) return text;
  // Never cut a surrogate pair in half: an unpaired surrogate is not valid text for the embedding endpoint.
  let end = EMBEDDING_MAX_CHARS;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end);
}

/** `search_document: ` + the chunk content (which already starts with its breadcrumb), at most 1400 characters. */
export function chunkEmbeddingInput(content: string): string {
  return truncate(EMBEDDING_PREFIX + content);
}

/** A chunk's key text holds at most this many of its symbol names (a file-level chunk may list dozens). */
export const KEY_NAMES = 12;
/** String literals of at least this many characters count as messages (shorter ones are keys, formats, names). */
const MIN_MESSAGE_CHARS = 12;
const MAX_MESSAGE_CHARS = 200;
/** Quoted literals on one line: "…", '…' (not after two letters: `don't`; after one: Python's `f'…'`), `…` (escapes skipped). */
const LITERAL = /"((?:[^"\\\n]|\\.)*)"|(?<![A-Za-z]{2})'((?:[^'\\\n]|\\.)*)'|`((?:[^`\\\n]|\\.)*)`/g;
/** Format verbs and placeholders (%s, %-8.3f, {name}, ${x}): a log line shows their values, not them. */
const FORMAT_VERB = /%[-+#0-9.*]*[a-zA-Z]|\$?\{[^}]*\}/g;
/**
 * A chunk's key text (docs/graph.md "Chunk search"): what names it defines and what it says, in words, for a
 * second vector beside the content's (spec rule 7's vector is unchanged). A sentence model reads `continueAsNew` as
 * one unknown token and a whole function body as a blur; `continue as new` and the chunk's messages
 * (`time: invalid duration`) it reads as a person would. The names are the chunk's symbols as words, the messages
 * its string literals of 12 characters or more with their format verbs dropped, identifiers in them as words too
 * (the query is embedded so: graph-api/search/search.ts chunkSearchInput). Prefixed with `search_document: `
 * and cut at 1400 characters like every embedding input; null when the chunk has neither.
 */
export function chunkKeyInput(content: string, symbols: readonly string[]): string | null {
  const names: string[] = [];
  for (const s of symbols) {
    const w = identifierWords(s);
    if (w !== '' && !names.includes(w)) names.push(w);
    if (names.length >= KEY_NAMES) break;
  }
  const messages: string[] = [];
  let chars = 0;
  for (const m of content.matchAll(LITERAL)) {
    const raw = m[1] ?? m[2] ?? m[3] ?? '';
    // A message has words: two letters, a space, a letter (not a path, a format or a base64 blob).
    if (raw.length < MIN_MESSAGE_CHARS || raw.length > MAX_MESSAGE_CHARS || !/[A-Za-z]{2,}\s+[A-Za-z]/.test(raw)) {
      continue;
    }
    const text = splitIdentifiers(raw.replace(/\\[nt]/g, ' ').replace(FORMAT_VERB, ' '))
      .replace(/\s+/g, ' ')
      .trim();
    if (text === '' || messages.includes(text)) continue;
    messages.push(text);
    chars += text.length + 1;
    if (chars >= EMBEDDING_MAX_CHARS) break;
  }
  if (names.length === 0 && messages.length === 0) return null;
  return truncate(`${EMBEDDING_PREFIX}${[names.join(', '), ...messages].filter((x) => x !== '').join('\n')}`);
}

export interface FileEmbeddingFields {
  path: string;
  type: string;
  language: string;
  /** The decoded file text ('' for binary or unread files). */
  content: string;
}

/** `search_document: path: <p>\ntype: <t>\nlanguage: <l>\n` + the first 100 lines, at most 1400 characters. */
export function fileEmbeddingInput(file: FileEmbeddingFields): string {
  let end = 0;
  for (let i = 0; i < FILE_EMBEDDING_LINES; i++) {
    const nl = file.content.indexOf('\n', end);
    if (nl === -1) {
      end = file.content.length;
      break;
    }
    end = nl + 1;
  }
  const head = file.content.slice(0, end);
  return truncate(`${EMBEDDING_PREFIX}path: ${file.path}\ntype: ${file.type}\nlanguage: ${file.language}\n${head}`);
}
