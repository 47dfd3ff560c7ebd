/**
 * The stand-in's embedding model: a deterministic lexical embedding for code.
 *
 * Text is split into identifier sub-tokens (camelCase, PascalCase, snake_case, kebab-case, path segments, digits),
 * each term gets a sublinear weight (1 + ln tf) scaled by where it occurs (a definition site or the file path counts
 * more, language keywords and English filler count less), and the terms are folded into EMBEDDING_DIM slots by signed
 * feature hashing. The vector is L2-normalised, so the cosine of a query and a document grows with the words they
 * share: a query that names `parseConfig` points the way of the file that defines `parseConfig`.
 *
 * Like the code-embedding models served in production (nomic-style), input is expected to carry a task prefix:
 * `search_query: ` for queries and `search_document: ` for documents. The prefix selects the mode and is not part of
 * the content; text without a prefix is embedded as a document and counted as unprefixed by the server.
 */

export type EmbedMode = 'query' | 'document';

export interface PreparedInput {
  mode: EmbedMode;
  /** True when the caller supplied a recognised task prefix. */
  prefixed: boolean;
  text: string;
}

const PREFIXES: ReadonlyArray<readonly [string, EmbedMode]> = [
  ['search_query:', 'query'],
  ['search_document:', 'document'],
];

export function prepareInput(raw: string): PreparedInput {
  const trimmed = raw.trimStart();
  for (const [prefix, mode] of PREFIXES) {
    if (trimmed.startsWith(prefix)) return { mode, prefixed: true, text: trimmed.slice(prefix.length) };
  }
  return { mode: 'document', prefixed: false, text: raw };
}

/** Words that carry little meaning in code search: keywords of common languages and English filler. */
const STOP = new Set(
  (
    'a an and are as at be but by for from if in into is it its of on or so that the this to was were will with ' +
    'abstract async await bool boolean break case catch char class const continue def default defer del do double ' +
    'elif else end enum export extends false final finally float fn for func function go if impl implements import ' +
    'in int interface let long match mod module mut new nil none not null number object of package pass private ' +
    'protected pub public raise readonly return self static str string struct super switch this throw throws true ' +
    'try type typeof undefined use var void where while yield include define ifdef ifndef endif'
  ).split(' '),
);

/** Keywords after which the next identifier is a definition (`function parseConfig`, `class Foo`, `def bar`). */
const DEFINERS = new Set([
  'function',
  'def',
  'class',
  'func',
  'fn',
  'struct',
  'interface',
  'type',
  'enum',
  'trait',
  'module',
  'object',
  'record',
  'const',
  'let',
  'var',
  'val',
  'macro',
  'define',
]);

/** Splits one identifier into lower-case sub-tokens: `parseHTTPRequest_v2` → parse, http, request, v, 2. */
export function splitIdentifier(identifier: string): string[] {
  const out: string[] = [];
  for (const part of identifier.split(/[^A-Za-z0-9]+/)) {
    if (part === '') continue;
    const pieces = part.match(/[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+/g) ?? [];
    for (const p of pieces) out.push(p.toLowerCase());
  }
  return out;
}

/** Identifier-like runs in source text (letters, digits, `_`, `$`), in order. */
function identifiers(text: string): string[] {
  return text.match(/[A-Za-z_$][A-Za-z0-9_$]*|[0-9]+/g) ?? [];
}

const WEIGHT_DEFINITION = 3;
const WEIGHT_PATH = 2;
const WEIGHT_STOP = 0.1;
const WEIGHT_WHOLE_IDENTIFIER = 1.5;

/**
 * Weighted features of a text. Feature keys are namespaced: `t:` a sub-token, `w:` a whole multi-part identifier
 * (so an exact identifier match counts beyond its parts), `b:` a pair of adjacent sub-tokens inside one identifier.
 */
export function features(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  const scale = new Map<string, number>();
  const add = (key: string, factor: number) => {
    counts.set(key, (counts.get(key) ?? 0) + 1);
    scale.set(key, Math.max(scale.get(key) ?? 0, factor));
  };

  // Path lines (the file-level embedding text starts with `path: <file_path>`; chunks with `# file: <path>`).
  const pathTokens = new Set<string>();
  for (const m of text.matchAll(/^\s*#?\s*(?:path|file):\s*(\S+)/gm)) {
    for (const t of splitIdentifier(m[1] ?? '')) pathTokens.add(t);
  }

  const ids = identifiers(text);
  let definitionNext = false;
  for (const id of ids) {
    const lower = id.toLowerCase();
    const isDefinition = definitionNext;
    definitionNext = DEFINERS.has(lower);
    const subs = splitIdentifier(id);
    const base = isDefinition ? WEIGHT_DEFINITION : 1;
    for (const s of subs) {
      if (s.length < 2 && !/[0-9]/.test(s)) continue;
      const factor =
        STOP.has(s) && !isDefinition ? WEIGHT_STOP : pathTokens.has(s) ? Math.max(base, WEIGHT_PATH) : base;
      add(`t:${s}`, factor);
    }
    if (subs.length > 1) {
      add(`w:${subs.join('')}`, base * WEIGHT_WHOLE_IDENTIFIER);
      for (let i = 0; i + 1 < subs.length; i++) add(`b:${subs[i]}_${subs[i + 1]}`, base);
    }
  }

  const weights = new Map<string, number>();
  for (const [key, tf] of counts) weights.set(key, (1 + Math.log(tf)) * (scale.get(key) ?? 1));
  return weights;
}

/** FNV-1a, 32 bits, over the UTF-16 code units of `s`, from a given offset basis. */
function fnv1a(s: string, basis = 0x811c9dc5): number {
  let h = basis;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** Embeds prepared text into `dim` floats, L2-normalised. Deterministic: same text, same vector. */
export function embedText(text: string, dim: number): number[] {
  const v = new Float64Array(dim);
  for (const [key, w] of features(text)) {
    const slot = fnv1a(key) % dim;
    const sign = (fnv1a(key, 0x9747b28c) & 1) === 0 ? 1 : -1;
    v[slot] = (v[slot] ?? 0) + sign * w;
  }
  let norm = 0;
  for (const x of v) norm += x * x;
  if (norm === 0) {
    // No usable token (empty or punctuation only): a fixed unit vector, as a real model also returns some vector.
    v[fnv1a('<empty>') % dim] = 1;
    norm = 1;
  }
  const inv = 1 / Math.sqrt(norm);
  return Array.from(v, (x) => x * inv);
}

/** The stand-in's token estimate, used for usage figures and context limits: one token per four characters. */
export const CHARS_PER_TOKEN = 4;

export function estimateTokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}
