/**
 * A chunk's search terms as a tsvector in PostgreSQL's binary form (tsvectorsend/tsvectorrecv), built in one pass.
 *
 * It runs for every chunk a sync writes (in the engine's parse threads), so it is written for speed (see
 * docs/decisions.md, "Search terms on the write path"):
 * - the tokens of a chunk are found by a character-class scan that hashes each token as it goes; an occurrence is
 *   looked up in a small cache-resident table of the thread's recent tokens (a probe and a character comparison, no
 *   string), and only a token not seen recently is cut out and looked up in the thread's table of every token seen,
 *   which holds its lexemes (lib/search-terms.ts tokenLexemes, computed once per distinct token);
 * - each lexeme object of that table collects the chunk's occurrences itself (reset by a per-chunk stamp), in scan
 *   order, so its first MAX_POSITIONS positions need no merging, sorting or per-chunk maps;
 * - the result is tsvector's binary form, which PostgreSQL reads with a copy per lexeme (tsvectorrecv) instead of
 *   parsing a text literal character by character (tsvector_in).
 *
 * Lexemes and weights are those of lib/search-terms.ts: symbols A, the breadcrumb's path and constructs B, the body D.
 */
import { tokenLexemes } from './search-terms.ts';

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

interface Lexeme {
  /** UTF-8 bytes followed by a NUL, as tsvectorrecv reads a lexeme. */
  readonly bytes: Uint8Array;
  /** The chunk (stamp) whose occurrences `occurrences` holds. */
  stamp: number;
  count: number;
  /** WordEntryPos values: weight << 14 | position, ascending positions. */
  readonly occurrences: Uint16Array;
}

const encoder = new TextEncoder();
/** Tokens seen by this thread → their lexemes; lexemes shared between tokens (`read` of `Read` and `readAll`). */
const tokenTable = new Map<string, readonly Lexeme[]>();
const lexemeTable = new Map<string, Lexeme>();
const TABLE_SIZE = 250_000;
let stamp = 0;

function lexemesOf(token: string): readonly Lexeme[] {
  let out = tokenTable.get(token);
  if (out === undefined) {
    out = tokenLexemes(token).map((text) => {
      let lexeme = lexemeTable.get(text);
      if (lexeme === undefined) {
        const utf8 = encoder.encode(text);
        const bytes = new Uint8Array(utf8.length + 1);
        bytes.set(utf8);
        lexeme = { bytes, stamp: 0, count: 0, occurrences: new Uint16Array(MAX_POSITIONS) };
        lexemeTable.set(text, lexeme);
      }
      return lexeme;
    });
    tokenTable.set(token, out);
  }
  return out;
}

/** ASCII code units that belong to an identifier-like run (lib/search-terms.ts TOKEN): letters, digits, `_`, `$`. */
const ASCII_TOKEN = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  ASCII_TOKEN[c] = /[A-Za-z0-9_$]/.test(ch) ? 1 : 0;
}

/** Whether a UTF-16 code unit belongs to an identifier-like run: any non-ASCII unit too (splitting keeps letters). */
function isTokenUnit(c: number): boolean {
  return c >= 128 || ASCII_TOKEN[c] === 1;
}

/**
 * The thread's recent tokens: an open-addressing table on a hash computed while scanning, emptied (by a new
 * generation) whenever it holds RECENT_TOKENS. An occurrence of a recent token costs a probe and a character
 * comparison in a table small enough to stay in the CPU's cache, without a string or a lookup in the large token
 * table (whose cache misses were most of the cost: code repeats its identifiers within a chunk, a file, a package).
 */
const RECENT_TOKENS = 8192;
const SLOTS = RECENT_TOKENS * 2;
const slotGeneration = new Int32Array(SLOTS);
const slotEntry = new Int32Array(SLOTS);
const entryHash = new Int32Array(RECENT_TOKENS);
const entryToken: string[] = new Array<string>(RECENT_TOKENS).fill('');
const entryLexemes: Array<readonly Lexeme[]> = new Array<readonly Lexeme[]>(RECENT_TOKENS).fill([]);
let generation = 1;
let entries = 0;

function sameToken(token: string, text: string, start: number, end: number): boolean {
  if (token.length !== end - start) return false;
  for (let k = 0; k < token.length; k++) if (token.charCodeAt(k) !== text.charCodeAt(start + k)) return false;
  return true;
}

/** The lexemes of the token text[start, end) whose hash is h. */
function lookup(text: string, start: number, end: number, h: number): readonly Lexeme[] {
  let s = h & (SLOTS - 1);
  while (slotGeneration[s] === generation) {
    const e = slotEntry[s]!;
    if (entryHash[e] === h && sameToken(entryToken[e]!, text, start, end)) return entryLexemes[e]!;
    s = (s + 1) & (SLOTS - 1);
  }
  if (entries === RECENT_TOKENS) {
    generation++;
    entries = 0;
    s = h & (SLOTS - 1);
  }
  const token = text.slice(start, end);
  const lexemes = lexemesOf(token);
  const e = entries++;
  entryHash[e] = h;
  entryToken[e] = token;
  entryLexemes[e] = lexemes;
  slotGeneration[s] = generation;
  slotEntry[s] = e;
  return lexemes;
}

/** One chunk's scan: the lexemes it touched, in first-occurrence order, and the running position. */
class Collector {
  readonly touched: Lexeme[] = [];
  position = 0;
  lexemeBytes = 0;

  scan(text: string, from: number, to: number, weight: number): void {
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
      if (this.position < MAX_POSITION) this.position++;
      const entry = weight | this.position;
      const lexemes = lookup(text, start, i, h);
      for (let k = 0; k < lexemes.length; k++) {
        const lexeme = lexemes[k]!;
        if (lexeme.stamp !== stamp) {
          if (this.lexemeBytes + lexeme.bytes.length > MAX_LEXEME_BYTES) continue;
          this.lexemeBytes += lexeme.bytes.length;
          lexeme.stamp = stamp;
          lexeme.occurrences[0] = entry;
          lexeme.count = 1;
          this.touched.push(lexeme);
        } else if (lexeme.count < MAX_POSITIONS) {
          const last = lexeme.occurrences[lexeme.count - 1]!;
          // Positions stop at MAX_POSITION: one entry there, with the highest weight (as tsvector_in keeps).
          if ((last & 0x3fff) !== this.position) lexeme.occurrences[lexeme.count++] = entry;
          else if (entry > last) lexeme.occurrences[lexeme.count - 1] = entry;
        }
      }
    }
  }

  /** The header's lines, without their labels (`# file: `, `# in: `: in every chunk, so not terms). */
  scanHeader(content: string, end: number): void {
    let line = 0;
    while (line < end) {
      let next = content.indexOf('\n', line);
      if (next < 0 || next > end) next = end;
      let from = line;
      if (content.startsWith('# file: ', line)) from += 8;
      else if (content.startsWith('# in: ', line)) from += 6;
      this.scan(content, from, next, WEIGHT_B);
      line = next + 1;
    }
  }

  /** tsvectorsend's form: lexeme count, then per lexeme its NUL-terminated UTF-8, position count and positions. */
  encode(): Uint8Array {
    let size = 4;
    for (const l of this.touched) size += l.bytes.length + 2 + 2 * l.count;
    const out = new Uint8Array(size);
    const n = this.touched.length;
    out[0] = n >>> 24;
    out[1] = (n >>> 16) & 255;
    out[2] = (n >>> 8) & 255;
    out[3] = n & 255;
    let o = 4;
    for (const l of this.touched) {
      const b = l.bytes;
      for (let k = 0; k < b.length; k++) out[o++] = b[k]!;
      out[o++] = 0;
      out[o++] = l.count;
      for (let k = 0; k < l.count; k++) {
        const p = l.occurrences[k]!;
        out[o++] = p >>> 8;
        out[o++] = p & 255;
      }
    }
    return out;
  }
}

/**
 * A chunk's terms as a binary tsvector. Lexemes of the breadcrumb header (`# file:` and `# in:` lines: the path and
 * the enclosing constructs) get weight B, the chunk's own symbols weight A (after the body), the body D.
 */
export function chunkSearchVector(content: string, symbols: readonly string[]): Uint8Array {
  if (tokenTable.size >= TABLE_SIZE) {
    tokenTable.clear();
    lexemeTable.clear();
    generation++;
    entries = 0;
  }
  stamp = (stamp + 1) | 0 || 1;
  const c = new Collector();
  let bodyStart = 0;
  if (content.startsWith('# file: ')) {
    const end = content.indexOf('\n\n');
    const headerEnd = end < 0 ? content.length : end;
    c.scanHeader(content, headerEnd);
    bodyStart = end < 0 ? content.length : end + 2;
  }
  c.scan(content, bodyStart, content.length, WEIGHT_D);
  for (const s of symbols) c.scan(s, 0, s.length, WEIGHT_A);
  return c.encode();
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
