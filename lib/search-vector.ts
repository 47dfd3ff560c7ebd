/**
 * A chunk's search terms as a tsvector in PostgreSQL's binary form (tsvectorsend/tsvectorrecv), built in one pass.
 *
 * It runs for every chunk a sync writes (in the engine's parse threads), so it is written for speed (see
 * docs/decisions.md, "Search terms on the write path"):
 * - nothing is kept between chunks: in a sync nearly every chunk is new to its thread (each thread sees its half of
 *   the tree once), so a thread-wide token cache mostly missed, and its large tables cost cache misses and garbage
 *   collection marking; a per-chunk table of small reused typed arrays stays in the CPU's cache;
 * - the tokens of a chunk are found by a character-class scan that hashes each token as it goes; an occurrence of a
 *   token already seen in the chunk costs a probe and a character comparison (no string); a new ASCII token is split
 *   by a hand-written splitter straight into lower-case UTF-8 bytes in a per-chunk pool, and its lexemes are looked
 *   up by their bytes: no string, array or Map entry per token or lexeme, so the collector has almost nothing to do
 *   (the Unicode expressions of lib/search-terms.ts, with strings, only for tokens with non-ASCII characters and hex
 *   literals), with the same result as lib/search-terms.ts tokenLexemes;
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

const isUpper = (c: number) => c >= 65 && c <= 90;
const isLower = (c: number) => c >= 97 && c <= 122;
const isDigit = (c: number) => c >= 48 && c <= 57;

/** FNV-1a step. */
const mix = (h: number, c: number) => Math.imul(h ^ c, 0x01000193);
const FNV_SEED = 0x811c9dc5;

/**
 * Per-chunk scratch, reused from chunk to chunk (grown, never shrunk):
 * - the chunk's distinct tokens: an open-addressing table on the scan's hash (a slot is in use when its stamp is the
 *   chunk's); a token is known by where it first occurred (the content, or symbol k) and its length;
 * - its lexemes: lower-case UTF-8 bytes in one pool, an open-addressing table on their hash, and per lexeme its
 *   occurrences;
 * - per token, the run of its lexemes' indexes in tokenLexemeList.
 */
/** Entries the tables start with; after a chunk that grew them past LARGE they start over (no 100 MB kept). */
const INITIAL = 4096;
const LARGE = 1 << 16;
let slotStamp = new Int32Array(2 * INITIAL);
let slotToken = new Int32Array(2 * INITIAL);
let tokenSource = new Int32Array(INITIAL);
let tokenStart = new Int32Array(INITIAL);
let tokenLength = new Int32Array(INITIAL);
let tokenHash = new Int32Array(INITIAL);
let tokenFirst = new Int32Array(INITIAL);
let tokenCount = new Int32Array(INITIAL);
let tokens = 0;
let tokenLexemeList = new Int32Array(INITIAL);
let listLength = 0;

let lexSlotStamp = new Int32Array(2 * INITIAL);
let lexSlot = new Int32Array(2 * INITIAL);
let lexStart = new Int32Array(INITIAL);
let lexLength = new Int32Array(INITIAL);
let lexHash = new Int32Array(INITIAL);
let lexemeCount = new Uint8Array(INITIAL);
/** MAX_POSITIONS WordEntryPos values (weight << 14 | position) per lexeme, ascending positions. */
let lexemeOccurrences = new Uint16Array(INITIAL * MAX_POSITIONS);
let lexemes = 0;
let pool = new Uint8Array(16 * INITIAL);
let poolLength = 0;

let stamp = 0;
/** The chunk's symbols: a token's source k >= 0 is symbols[k], -1 the content. */
let chunkContent = '';
let chunkSymbols: readonly string[] = [];

const powerOfTwoAtLeast = (n: number) => 2 ** Math.ceil(Math.log2(Math.max(n, 16)));

function grown<T extends Int32Array | Uint8Array | Uint16Array>(a: T, size: number): T {
  const out = new (a.constructor as new (n: number) => T)(size);
  out.set(a);
  return out;
}

/** Room for one more token: the arrays double, the table is rebuilt at twice the tokens' capacity. */
function ensureToken(): void {
  if (tokens === tokenSource.length) {
    const n = 2 * tokens;
    tokenSource = grown(tokenSource, n);
    tokenStart = grown(tokenStart, n);
    tokenLength = grown(tokenLength, n);
    tokenHash = grown(tokenHash, n);
    tokenFirst = grown(tokenFirst, n);
    tokenCount = grown(tokenCount, n);
  }
  if (2 * (tokens + 1) <= slotStamp.length) return;
  slotStamp = new Int32Array(2 * slotStamp.length);
  slotToken = new Int32Array(slotStamp.length);
  const mask = slotStamp.length - 1;
  for (let t = 0; t < tokens; t++) {
    let s = tokenHash[t]! & mask;
    while (slotStamp[s] === stamp) s = (s + 1) & mask;
    slotStamp[s] = stamp;
    slotToken[s] = t;
  }
}

/** Room for one more lexeme, as ensureToken. */
function ensureLexeme(): void {
  if (lexemes === lexStart.length) {
    const n = 2 * lexemes;
    lexStart = grown(lexStart, n);
    lexLength = grown(lexLength, n);
    lexHash = grown(lexHash, n);
    lexemeCount = grown(lexemeCount, n);
    lexemeOccurrences = grown(lexemeOccurrences, n * MAX_POSITIONS);
  }
  if (2 * (lexemes + 1) <= lexSlotStamp.length) return;
  lexSlotStamp = new Int32Array(2 * lexSlotStamp.length);
  lexSlot = new Int32Array(lexSlotStamp.length);
  const mask = lexSlotStamp.length - 1;
  for (let l = 0; l < lexemes; l++) {
    let s = lexHash[l]! & mask;
    while (lexSlotStamp[s] === stamp) s = (s + 1) & mask;
    lexSlotStamp[s] = stamp;
    lexSlot[s] = l;
  }
}

function ensureList(entries: number): void {
  if (listLength + entries > tokenLexemeList.length)
    tokenLexemeList = grown(tokenLexemeList, powerOfTwoAtLeast(listLength + entries));
}

/** After a chunk that grew the tables past LARGE entries: back to the initial sizes. */
function shrink(): void {
  if (tokenSource.length > LARGE || lexStart.length > LARGE || tokenLexemeList.length > LARGE) {
    slotStamp = new Int32Array(2 * INITIAL);
    slotToken = new Int32Array(2 * INITIAL);
    tokenSource = new Int32Array(INITIAL);
    tokenStart = new Int32Array(INITIAL);
    tokenLength = new Int32Array(INITIAL);
    tokenHash = new Int32Array(INITIAL);
    tokenFirst = new Int32Array(INITIAL);
    tokenCount = new Int32Array(INITIAL);
    tokenLexemeList = new Int32Array(INITIAL);
    lexSlotStamp = new Int32Array(2 * INITIAL);
    lexSlot = new Int32Array(2 * INITIAL);
    lexStart = new Int32Array(INITIAL);
    lexLength = new Int32Array(INITIAL);
    lexHash = new Int32Array(INITIAL);
    lexemeCount = new Uint8Array(INITIAL);
    lexemeOccurrences = new Uint16Array(INITIAL * MAX_POSITIONS);
  }
  if (pool.length > 16 * LARGE) pool = new Uint8Array(16 * INITIAL);
  if (partOffset.length > LARGE) {
    partOffset = new Int32Array(64);
    partLength = new Int32Array(64);
  }
}

function ensurePool(bytes: number): void {
  if (poolLength + bytes <= pool.length) return;
  const grown = new Uint8Array(powerOfTwoAtLeast(poolLength + bytes));
  grown.set(pool.subarray(0, poolLength));
  pool = grown;
}

function sourceText(k: number): string {
  return k < 0 ? chunkContent : chunkSymbols[k]!;
}

/**
 * The index of the lexeme whose bytes are pool[at, at + length) (hash h), or -1 - the free slot it would take. Calls
 * ensureLexeme first, so that slot stays valid for addLexeme.
 */
function findLexeme(at: number, length: number, h: number): number {
  ensureLexeme();
  const mask = lexSlotStamp.length - 1;
  let s = h & mask;
  while (lexSlotStamp[s] === stamp) {
    const l = lexSlot[s]!;
    if (lexHash[l] === h && lexLength[l] === length) {
      const from = lexStart[l]!;
      let k = 0;
      while (k < length && pool[from + k] === pool[at + k]) k++;
      if (k === length) return l;
    }
    s = (s + 1) & mask;
  }
  return -1 - s;
}

/** A new lexeme of `length` bytes at pool[start], hash h, in the free slot findLexeme gave. */
function addLexeme(slot: number, start: number, length: number, h: number): number {
  const l = lexemes++;
  lexStart[l] = start;
  lexLength[l] = length;
  lexHash[l] = h;
  lexemeCount[l] = 0;
  lexSlotStamp[slot] = stamp;
  lexSlot[slot] = l;
  return l;
}

/**
 * The index of the lexeme whose bytes are pool[at, at + length) (hash h); when new, it is added, its bytes taken
 * from the pool where they are (`at` must then be at or below poolLength, and pool[at, at + length) ends the pool).
 */
function lexemeOf(at: number, length: number, h: number): number {
  const found = findLexeme(at, length, h);
  if (found >= 0) return found;
  if (at !== poolLength) pool.copyWithin(poolLength, at, at + length);
  const l = addLexeme(-1 - found, poolLength, length, h);
  poolLength += length;
  return l;
}

function hashOf(at: number, length: number): number {
  let h = FNV_SEED;
  for (let k = at; k < at + length; k++) h = mix(h, pool[k]!);
  return h;
}

/** Appends lexeme l to the current token's run (tokenFirst of the token being added) unless already there. */
function pushLexeme(first: number, l: number): void {
  for (let k = first; k < listLength; k++) if (tokenLexemeList[k] === l) return;
  tokenLexemeList[listLength++] = l;
}

/** Sub-word ranges of the current ASCII token, as offsets into its lower-case whole in the pool. */
let partOffset = new Int32Array(64);
let partLength = new Int32Array(64);

/**
 * lib/search-terms.ts tokenLexemes for an ASCII token text[start, end), without strings: sub-words are an acronym
 * before a capitalised word, a capitalised or lower-case word, an acronym, a digit run; the lexemes are the joined
 * whole and, when there are several sub-words, each of 2+ characters (digit runs of any length). The whole is written
 * lower-case at the pool's end; a sub-word is a range of it (kept in place when the whole is new, else moved down).
 */
function asciiLexemes(text: string, start: number, end: number, first: number): void {
  ensurePool(end - start);
  if (partOffset.length < end - start) {
    partOffset = new Int32Array(powerOfTwoAtLeast(end - start));
    partLength = new Int32Array(partOffset.length);
  }
  const base = poolLength;
  let w = base;
  let parts = 0;
  let h = FNV_SEED;
  let i = start;
  while (i < end) {
    const c = text.charCodeAt(i);
    let j = i + 1;
    if (isDigit(c)) {
      while (j < end && isDigit(text.charCodeAt(j))) j++;
    } else if (isLower(c)) {
      while (j < end && isLower(text.charCodeAt(j))) j++;
    } else if (isUpper(c)) {
      while (j < end && isUpper(text.charCodeAt(j))) j++;
      if (j < end && isLower(text.charCodeAt(j))) {
        if (j - i > 1) {
          partOffset[parts] = w - base;
          partLength[parts++] = j - 1 - i;
          for (; i < j - 1; i++) h = mix(h, (pool[w++] = text.charCodeAt(i) | 32));
        }
        j++;
        while (j < end && isLower(text.charCodeAt(j))) j++;
      }
    } else {
      i = j; // `_` or `$`: a separator
      continue;
    }
    partOffset[parts] = w - base;
    partLength[parts++] = j - i;
    for (; i < j; i++) h = mix(h, (pool[w++] = text.charCodeAt(i) | 32));
  }
  if (parts === 0) return;
  const whole = w - base;
  if (whole <= MAX_LEXEME) pushLexeme(first, lexemeOf(base, whole, h));
  if (parts === 1) return;
  // The whole, when new, now ends the pool and holds its sub-words; when not, they are moved down one by one (each
  // to at most its own offset, so the next ones stay intact).
  const kept = poolLength !== base;
  for (let p = 0; p < parts; p++) {
    const length = partLength[p]!;
    const at = base + partOffset[p]!;
    if ((length > 1 || isDigit(pool[at]!)) && length <= MAX_LEXEME) {
      if (kept) {
        const l = lexemeOfRange(at, length);
        pushLexeme(first, l);
      } else pushLexeme(first, lexemeOf(at, length, hashOf(at, length)));
    }
  }
}

/** lexemeOf for bytes inside an already-added lexeme: a new one shares them (no copy). */
function lexemeOfRange(at: number, length: number): number {
  const h = hashOf(at, length);
  const found = findLexeme(at, length, h);
  return found >= 0 ? found : addLexeme(-1 - found, at, length, h);
}

const encoder = new TextEncoder();

/** Lexemes of a token that needs lib/search-terms.ts's rules (non-ASCII characters, hexadecimal literals). */
function stringLexemes(token: string, first: number): void {
  for (const lexeme of tokenLexemes(token)) {
    ensurePool(3 * lexeme.length);
    const { written } = encoder.encodeInto(lexeme, pool.subarray(poolLength));
    pushLexeme(first, lexemeOf(poolLength, written, hashOf(poolLength, written)));
  }
}

function sameToken(t: number, text: string, start: number, length: number): boolean {
  if (tokenLength[t] !== length) return false;
  const other = sourceText(tokenSource[t]!);
  const from = tokenStart[t]!;
  for (let k = 0; k < length; k++) if (other.charCodeAt(from + k) !== text.charCodeAt(start + k)) return false;
  return true;
}

/** The chunk's token index of text[start, end) (source k, hash h), adding the token and its lexemes when new. */
function tokenOf(text: string, source: number, start: number, end: number, h: number, ascii: boolean): number {
  ensureToken();
  const mask = slotStamp.length - 1;
  let s = h & mask;
  while (slotStamp[s] === stamp) {
    const t = slotToken[s]!;
    if (tokenHash[t] === h && sameToken(t, text, start, end - start)) return t;
    s = (s + 1) & mask;
  }
  const t = tokens++;
  tokenSource[t] = source;
  tokenStart[t] = start;
  tokenLength[t] = end - start;
  tokenHash[t] = h;
  const first = listLength;
  tokenFirst[t] = first;
  ensureList(end - start + 1);
  if (!ascii) stringLexemes(text.slice(start, end), first);
  else if (end - start > 2 && text.charCodeAt(start) === 48 && (text.charCodeAt(start + 1) | 32) === 120) {
    const token = text.slice(start, end);
    if (isHexLiteral(token))
      stringLexemes(token, first); // lib/search-terms.ts's rule for hexadecimal literals
    else asciiLexemes(text, start, end, first);
  } else asciiLexemes(text, start, end, first);
  tokenCount[t] = listLength - first;
  slotStamp[s] = stamp;
  slotToken[s] = t;
  return t;
}

let position = 0;

function scan(text: string, source: number, from: number, to: number, weight: number): void {
  let i = from;
  while (i < to) {
    let c = text.charCodeAt(i);
    if (c < 128 && ASCII_TOKEN[c] === 0) {
      i++;
      continue;
    }
    const start = i;
    let h = FNV_SEED;
    let ascii = true;
    do {
      if (c >= 128) ascii = false;
      h = mix(h, c);
      i++;
    } while (i < to && ((c = text.charCodeAt(i)) >= 128 || ASCII_TOKEN[c] === 1));
    if (position < MAX_POSITION) position++;
    const entry = weight | position;
    const t = tokenOf(text, source, start, i, h, ascii);
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
    scan(content, -1, from, next, WEIGHT_B);
    line = next + 1;
  }
}

/** tsvectorsend's form: lexeme count, then per lexeme its NUL-terminated UTF-8, position count and positions. */
function encode(): Uint8Array {
  let size = 4;
  let kept = 0;
  let bytes = 0;
  for (let l = 0; l < lexemes; l++) {
    if (lexemeCount[l] === 0) continue;
    const length = lexLength[l]!;
    if (bytes + length > MAX_LEXEME_BYTES) {
      lexemeCount[l] = 0;
      continue;
    }
    bytes += length;
    size += length + 3 + 2 * lexemeCount[l]!;
    kept++;
  }
  const out = new Uint8Array(size);
  out[0] = kept >>> 24;
  out[1] = (kept >>> 16) & 255;
  out[2] = (kept >>> 8) & 255;
  out[3] = kept & 255;
  let o = 4;
  for (let l = 0; l < lexemes; l++) {
    const count = lexemeCount[l]!;
    if (count === 0) continue;
    const from = lexStart[l]!;
    const to = from + lexLength[l]!;
    for (let k = from; k < to; k++) out[o++] = pool[k]!;
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
  tokens = 0;
  listLength = 0;
  lexemes = 0;
  poolLength = 0;
  position = 0;
  chunkContent = content;
  chunkSymbols = symbols;
  let bodyStart = 0;
  if (content.startsWith('# file: ')) {
    const end = content.indexOf('\n\n');
    const headerEnd = end < 0 ? content.length : end;
    scanHeader(content, headerEnd);
    bodyStart = end < 0 ? content.length : end + 2;
  }
  scan(content, -1, bodyStart, content.length, WEIGHT_D);
  for (let k = 0; k < symbols.length; k++) scan(symbols[k]!, k, 0, symbols[k]!.length, WEIGHT_A);
  const out = encode();
  chunkContent = '';
  chunkSymbols = [];
  shrink();
  return out;
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
