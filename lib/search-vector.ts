/**
 * A chunk's search terms as a tsvector in PostgreSQL's binary form (tsvectorsend/tsvectorrecv), built in one pass.
 *
 * It runs for every chunk a sync writes (in the engine's parse threads), so it is written for speed (see
 * docs/decisions.md, "Search terms on the write path"):
 * - nothing is kept between chunks: in a sync nearly every chunk is new to its thread (each thread sees its half of
 *   the tree once), so a thread-wide token cache mostly missed, and its large tables cost cache misses and garbage
 *   collection marking; a per-chunk table of small reused typed arrays stays in the CPU's cache;
 * - the tokens of a chunk are found by a character-class scan that hashes each token as it goes; an occurrence of a
 *   token already seen in the chunk costs a probe and a character comparison (no string); a new one is cut out once
 *   and split by a hand-written ASCII splitter (the Unicode expressions of lib/search-terms.ts only for tokens with
 *   non-ASCII characters), with the same result as lib/search-terms.ts tokenLexemes;
 * - each lexeme collects its occurrences in scan order, so its first MAX_POSITIONS positions need no merging;
 * - the result is tsvector's binary form, which PostgreSQL reads with a copy per lexeme (tsvectorrecv) instead of
 *   parsing a text literal character by character (tsvector_in).
 *
 * Lexemes and weights are those of lib/search-terms.ts: symbols A, the breadcrumb's path and constructs B, the body D.
 */
import { MAX_LEXEME, isHexLiteral, tokenLexemes } from './search-terms.ts';

/** Positions kept per lexeme: ts_rank counts occurrences; beyond a few the ranking does not change. */
const MAX_POSITIONS = 8;
/** tsvector positions are 1..16383. */
const MAX_POSITION = 16383;
/** PostgreSQL refuses a tsvector whose lexemes take 1 MB; a chunk stops taking new lexemes well before. */
const MAX_LEXEME_BYTES = 256 * 1024;
/** Weights as tsvector's WordEntryPos holds them (bits 14-15): A 3, B 2, D 0. */
const WEIGHT_A = 3 << 14;
const WEIGHT_B = 2 << 14;
const WEIGHT_D = 0;

/** ASCII code units that belong to an identifier-like run (lib/search-terms.ts TOKEN): letters, digits, `_`, `$`. */
const ASCII_TOKEN = new Uint8Array(128);
for (let c = 0; c < 128; c++) ASCII_TOKEN[c] = /[A-Za-z0-9_$]/.test(String.fromCharCode(c)) ? 1 : 0;

/** Whether a UTF-16 code unit belongs to an identifier-like run: any non-ASCII unit too (splitting keeps letters). */
function isTokenUnit(c: number): boolean {
  return c >= 128 || ASCII_TOKEN[c] === 1;
}

const isUpper = (c: number) => c >= 65 && c <= 90;
const isLower = (c: number) => c >= 97 && c <= 122;
const isDigit = (c: number) => c >= 48 && c <= 57;

/**
 * lib/search-terms.ts tokenLexemes for an ASCII token, without regular expressions: sub-words are an acronym before
 * a capitalised word, a capitalised or lower-case word, an acronym, a digit run; the lexemes are the joined whole
 * and, when there are several sub-words, each of 2+ characters (digit runs of any length).
 */
function asciiLexemes(token: string, out: string[]): void {
  const n = token.length;
  const parts: string[] = [];
  let i = 0;
  while (i < n) {
    const c = token.charCodeAt(i);
    let j = i + 1;
    if (isDigit(c)) {
      while (j < n && isDigit(token.charCodeAt(j))) j++;
    } else if (isLower(c)) {
      while (j < n && isLower(token.charCodeAt(j))) j++;
    } else if (isUpper(c)) {
      while (j < n && isUpper(token.charCodeAt(j))) j++;
      if (j < n && isLower(token.charCodeAt(j))) {
        if (j - i > 1) {
          parts.push(token.slice(i, j - 1).toLowerCase());
          i = j - 1;
        }
        j++;
        while (j < n && isLower(token.charCodeAt(j))) j++;
      }
    } else {
      i = j; // `_` or `$`: a separator
      continue;
    }
    parts.push(token.slice(i, j).toLowerCase());
    i = j;
  }
  if (parts.length === 0) return;
  const whole = parts.length === 1 ? parts[0]! : parts.join('');
  if (whole.length <= MAX_LEXEME) out.push(whole);
  if (parts.length === 1) return;
  for (const p of parts) {
    if ((p.length > 1 || isDigit(p.charCodeAt(0))) && p !== whole && !out.includes(p) && p.length <= MAX_LEXEME)
      out.push(p);
  }
}

/** The lexemes of one token into `out`. */
function lexemesOf(token: string, out: string[]): void {
  for (let k = 0; k < token.length; k++) {
    if (token.charCodeAt(k) >= 128) {
      for (const l of tokenLexemes(token)) out.push(l);
      return;
    }
  }
  if (token.length > 2 && token.charCodeAt(0) === 48 && (token.charCodeAt(1) | 32) === 120 && isHexLiteral(token)) {
    for (const l of tokenLexemes(token)) out.push(l); // lib/search-terms.ts's rule for hexadecimal literals
    return;
  }
  asciiLexemes(token, out);
}

/**
 * Per-chunk scratch, reused: the chunk's distinct tokens (open addressing on the scan's hash; a slot is in use when
 * its stamp is the chunk's) and its lexemes (a Map from text to index, cleared per chunk) with their occurrences.
 */
let slotStamp = new Int32Array(4096);
let slotToken = new Int32Array(4096);
const tokenText: string[] = [];
const tokenHash: number[] = [];
/** Per token: the index of its first lexeme in tokenLexemeList, and how many. */
const tokenFirst: number[] = [];
const tokenCount: number[] = [];
const tokenLexemeList: number[] = [];
const lexemeIndex = new Map<string, number>();
const lexemeText: string[] = [];
let lexemeCount = new Uint8Array(1024);
/** MAX_POSITIONS WordEntryPos values (weight << 14 | position) per lexeme, ascending positions. */
let lexemeOccurrences = new Uint16Array(1024 * MAX_POSITIONS);
let stamp = 0;
const split: string[] = [];

function reserve(tokens: number): void {
  let size = slotStamp.length;
  while (size < tokens * 2) size *= 2;
  if (size !== slotStamp.length) {
    slotStamp = new Int32Array(size);
    slotToken = new Int32Array(size);
  }
}

function addLexeme(text: string): number {
  const k = lexemeText.length;
  if (k === lexemeCount.length) {
    const count = new Uint8Array(k * 2);
    count.set(lexemeCount);
    lexemeCount = count;
    const occurrences = new Uint16Array(k * 2 * MAX_POSITIONS);
    occurrences.set(lexemeOccurrences);
    lexemeOccurrences = occurrences;
  }
  lexemeText.push(text);
  lexemeCount[k] = 0;
  lexemeIndex.set(text, k);
  return k;
}

function sameToken(token: string, text: string, start: number, end: number): boolean {
  if (token.length !== end - start) return false;
  for (let k = 0; k < token.length; k++) if (token.charCodeAt(k) !== text.charCodeAt(start + k)) return false;
  return true;
}

/** The chunk's token index of text[start, end) (hash h), adding the token and its lexemes when new. */
function tokenOf(text: string, start: number, end: number, h: number): number {
  const mask = slotStamp.length - 1;
  let s = h & mask;
  while (slotStamp[s] === stamp) {
    const t = slotToken[s]!;
    if (tokenHash[t] === h && sameToken(tokenText[t]!, text, start, end)) return t;
    s = (s + 1) & mask;
  }
  const t = tokenText.length;
  const token = text.slice(start, end);
  tokenText.push(token);
  tokenHash.push(h);
  tokenFirst.push(tokenLexemeList.length);
  split.length = 0;
  lexemesOf(token, split);
  for (const l of split) tokenLexemeList.push(lexemeIndex.get(l) ?? addLexeme(l));
  tokenCount.push(split.length);
  slotStamp[s] = stamp;
  slotToken[s] = t;
  return t;
}

let position = 0;

function scan(text: string, from: number, to: number, weight: number): void {
  let i = from;
  while (i < to) {
    let c = text.charCodeAt(i);
    if (!isTokenUnit(c)) {
      i++;
      continue;
    }
    const start = i;
    let h = 0x811c9dc5;
    do {
      h = Math.imul(h ^ c, 0x01000193);
      i++;
    } while (i < to && isTokenUnit((c = text.charCodeAt(i))));
    if (position < MAX_POSITION) position++;
    const entry = weight | position;
    const t = tokenOf(text, start, i, h);
    const first = tokenFirst[t]!;
    const end = first + tokenCount[t]!;
    for (let k = first; k < end; k++) {
      const l = tokenLexemeList[k]!;
      const count = lexemeCount[l]!;
      const base = l * MAX_POSITIONS;
      if (count === 0) {
        lexemeOccurrences[base] = entry;
        lexemeCount[l] = 1;
      } else if (count < MAX_POSITIONS) {
        const last = lexemeOccurrences[base + count - 1]!;
        // Positions stop at MAX_POSITION: one entry there, with the highest weight (as tsvector_in keeps).
        if ((last & 0x3fff) !== position) {
          lexemeOccurrences[base + count] = entry;
          lexemeCount[l] = count + 1;
        } else if (entry > last) lexemeOccurrences[base + count - 1] = entry;
      }
    }
  }
}

/** The header's lines, without their labels (`# file: `, `# in: `: in every chunk, so not terms). */
function scanHeader(content: string, end: number): void {
  let line = 0;
  while (line < end) {
    let next = content.indexOf('\n', line);
    if (next < 0 || next > end) next = end;
    let from = line;
    if (content.startsWith('# file: ', line)) from += 8;
    else if (content.startsWith('# in: ', line)) from += 6;
    scan(content, from, next, WEIGHT_B);
    line = next + 1;
  }
}

const encoder = new TextEncoder();

/** tsvectorsend's form: lexeme count, then per lexeme its NUL-terminated UTF-8, position count and positions. */
function encode(): Uint8Array {
  const n = lexemeText.length;
  let size = 4;
  let kept = 0;
  let bytes = 0;
  const utf8: Array<Uint8Array | null> = [];
  for (let l = 0; l < n; l++) {
    if (lexemeCount[l] === 0) {
      utf8.push(null);
      continue;
    }
    const text = lexemeText[l]!;
    let ascii = true;
    for (let k = 0; k < text.length && ascii; k++) ascii = text.charCodeAt(k) < 128;
    const encoded = ascii ? null : encoder.encode(text);
    const length = encoded === null ? text.length : encoded.length;
    if (bytes + length > MAX_LEXEME_BYTES) {
      lexemeCount[l] = 0;
      utf8.push(null);
      continue;
    }
    bytes += length;
    utf8.push(encoded);
    size += length + 3 + 2 * lexemeCount[l]!;
    kept++;
  }
  const out = new Uint8Array(size);
  out[0] = kept >>> 24;
  out[1] = (kept >>> 16) & 255;
  out[2] = (kept >>> 8) & 255;
  out[3] = kept & 255;
  let o = 4;
  for (let l = 0; l < n; l++) {
    const count = lexemeCount[l]!;
    if (count === 0) continue;
    const encoded = utf8[l];
    if (encoded === null || encoded === undefined) {
      const text = lexemeText[l]!;
      for (let k = 0; k < text.length; k++) out[o++] = text.charCodeAt(k);
    } else {
      out.set(encoded, o);
      o += encoded.length;
    }
    out[o++] = 0;
    out[o++] = 0;
    out[o++] = count;
    const base = l * MAX_POSITIONS;
    for (let k = 0; k < count; k++) {
      const p = lexemeOccurrences[base + k]!;
      out[o++] = p >>> 8;
      out[o++] = p & 255;
    }
  }
  return out;
}

/**
 * A chunk's terms as a binary tsvector. Lexemes of the breadcrumb header (`# file:` and `# in:` lines: the path and
 * the enclosing constructs) get weight B, the chunk's own symbols weight A (after the body), the body D.
 */
export function chunkSearchVector(content: string, symbols: readonly string[]): Uint8Array {
  stamp = (stamp + 1) | 0 || 1;
  tokenText.length = 0;
  tokenHash.length = 0;
  tokenFirst.length = 0;
  tokenCount.length = 0;
  tokenLexemeList.length = 0;
  lexemeIndex.clear();
  lexemeText.length = 0;
  position = 0;
  let length = content.length;
  for (const s of symbols) length += s.length + 1;
  // A token and its separator take 2+ characters: at most length / 2 + 1 distinct tokens.
  reserve((length >> 1) + 2);
  let bodyStart = 0;
  if (content.startsWith('# file: ')) {
    const end = content.indexOf('\n\n');
    const headerEnd = end < 0 ? content.length : end;
    scanHeader(content, headerEnd);
    bodyStart = end < 0 ? content.length : end + 2;
  }
  scan(content, bodyStart, content.length, WEIGHT_D);
  for (const s of symbols) scan(s, 0, s.length, WEIGHT_A);
  return encode();
}

const WEIGHT_LETTER = ['', 'C', 'B', 'A'];

/** A binary tsvector of chunkSearchVector as PostgreSQL would print it, lexemes in the vector's order (for tests). */
export function searchVectorText(vector: Uint8Array): string {
  const view = new DataView(vector.buffer, vector.byteOffset, vector.byteLength);
  const decoder = new TextDecoder();
  const n = view.getInt32(0);
  const parts: string[] = [];
  let o = 4;
  for (let i = 0; i < n; i++) {
    const end = vector.indexOf(0, o);
    const lexeme = decoder.decode(vector.subarray(o, end));
    o = end + 1;
    const count = view.getUint16(o);
    o += 2;
    const positions: string[] = [];
    for (let k = 0; k < count; k++, o += 2) {
      const p = view.getUint16(o);
      positions.push(`${p & 0x3fff}${WEIGHT_LETTER[p >>> 14]}`);
    }
    parts.push(`'${lexeme}'${count > 0 ? `:${positions.join(',')}` : ''}`);
  }
  return parts.join(' ');
}

/** TSVECTOROID: the element type a binary tsvector[] parameter names. */
const TSVECTOR_OID = 3614;

/**
 * Binary tsvectors as one binary tsvector[] value (array_recv's form: one dimension, no nulls), to be sent as a
 * binary query parameter (node-postgres sends a Buffer parameter in binary format): `$n::tsvector[]`.
 */
export function searchVectorArray(vectors: readonly Uint8Array[]): Buffer {
  let size = 20;
  for (const v of vectors) size += 4 + v.length;
  const out = Buffer.allocUnsafe(size);
  out.writeInt32BE(1, 0);
  out.writeInt32BE(0, 4);
  out.writeUInt32BE(TSVECTOR_OID, 8);
  out.writeInt32BE(vectors.length, 12);
  out.writeInt32BE(1, 16);
  let o = 20;
  for (const v of vectors) {
    out.writeInt32BE(v.length, o);
    out.set(v, o + 4);
    o += 4 + v.length;
  }
  return out;
}
