/**
 * Identifier-aware search terms, one definition for both sides of lexical chunk search: the sync writes a chunk's
 * terms as a tsvector (content_chunks.search_terms) and the graph component turns a query into a tsquery with the
 * same splitting, so `parseRequestBody`, `parse_request_body`, `ParseRequestBody` and "parse request body" meet.
 *
 * An identifier yields its sub-words (camelCase, PascalCase, snake_case, kebab-case, digits) and, when it has more
 * than one, their concatenation: `parse_request_body` → parse, request, body, parserequestbody. Lexemes are lower
 * case letters and digits only (Unicode letters kept), so the tsvector and tsquery literals need no quoting rules
 * beyond the surrounding quotes.
 *
 * Computed in Node rather than by an expression index: PostgreSQL's to_tsvector costs ~160 us per chunk (measured,
 * docs/decisions.md), more than the whole sync's budget for this index allows; parsing a ready tsvector literal is
 * a few microseconds.
 */

/**
 * Identifier-like runs: ASCII letters, digits, `_`, `$`, and any non-ASCII character (splitting keeps only the
 * letters and digits of those). Not a Unicode-property expression: this one runs over every byte a sync writes, and
 * V8 matches it ~2x faster.
 */
const TOKEN = /[A-Za-z0-9_$\u0080-\uffff]+/g;
/** Sub-words of one identifier: acronym before a capitalised word, capitalised or lower word, acronym, digits. */
const PART = /\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?\p{Ll}+|\p{Lu}+|\p{N}+|\p{Lo}+/gu;

/** Lexemes longer than this are dropped (PostgreSQL caps a lexeme at 2 KB; such tokens are base64 or hex data). */
export const MAX_LEXEME = 60;

/** The lower-case sub-words of one identifier: `parseHTTPRequest_v2` → parse, http, request, v, 2. */
export function splitIdentifier(identifier: string): string[] {
  const out: string[] = [];
  for (const p of identifier.match(PART) ?? []) out.push(p.toLowerCase());
  return out;
}

/** An identifier as words: `parseHTTPRequest_v2` → `parse http request v 2`. */
export function identifierWords(identifier: string): string {
  return splitIdentifier(identifier).join(' ');
}

const ASCII_IDENTIFIER = /[A-Za-z_$][A-Za-z0-9_$]*/g;

/** A text with every identifier written as words (`ParseDur` → `parse dur`); other characters are kept. */
export function splitIdentifiers(text: string): string {
  return text.replace(ASCII_IDENTIFIER, (id) => identifierWords(id) || id);
}

/**
 * Lexemes by token: code repeats its identifiers, and splitting with Unicode-aware expressions is the costly part
 * (a sync's chunk writer calls this for every token of every chunk: ~180 us per Go chunk uncached).
 */
const lexemeCache = new Map<string, readonly string[]>();
const LEXEME_CACHE_SIZE = 250_000;

/** The lexemes of one identifier token: its whole (joined) form first, then its sub-words of 2+ characters. */
export function identifierLexemes(token: string): readonly string[] {
  let out = lexemeCache.get(token);
  if (out === undefined) {
    if (lexemeCache.size >= LEXEME_CACHE_SIZE) lexemeCache.clear();
    out = tokenLexemes(token);
    lexemeCache.set(token, out);
  }
  return out;
}

/**
 * Hexadecimal literals: only a long one (a magic constant such as 0xEDB88320, a mask) is a term, as a whole; a short
 * one is a number like any other (tables of them fill whole files), and the runs inside any of them (`0`, `80`,
 * `edb`) mean nothing on their own. They were 15 % of the Go standard library's lexemes (docs/decisions.md).
 */
const HEX_LITERAL = /^0[xX][0-9a-fA-F]+$/;
const MIN_HEX_DIGITS = 6;

export function isHexLiteral(token: string): boolean {
  return HEX_LITERAL.test(token);
}

/** identifierLexemes without the cache (for callers that keep their own table: lib/search-vector.ts). */
export function tokenLexemes(token: string): string[] {
  if (isHexLiteral(token)) {
    return token.length - 2 >= MIN_HEX_DIGITS && token.length <= MAX_LEXEME ? [token.toLowerCase()] : [];
  }
  const parts = splitIdentifier(token);
  if (parts.length === 0) return [];
  const whole = parts.join('');
  const out = [whole];
  if (parts.length > 1) {
    for (const p of parts) if ((p.length > 1 || /\p{N}/u.test(p)) && !out.includes(p)) out.push(p);
  }
  return out.filter((l) => l.length <= MAX_LEXEME);
}

/** The identifier tokens of a text, in order. */
export function tokens(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

/** The breadcrumb header (`# file: …`, `# in: …`, up to the first blank line) and the body after it. */
export function splitBreadcrumb(content: string): { header: string; body: string; bodyLine: number } {
  if (!content.startsWith('# file: ')) return { header: '', body: content, bodyLine: 0 };
  const end = content.indexOf('\n\n');
  if (end < 0) return { header: content, body: '', bodyLine: 0 };
  const header = content.slice(0, end);
  return { header, body: content.slice(end + 2), bodyLine: header.split('\n').length + 1 };
}

/** English words that say nothing about code; dropped from queries that have other words. */
const QUERY_STOP = new Set(
  (
    'a an and are as at be by can do does for from how i in into is it its me my of on or that the their them ' +
    'then there these this those to what when where which while who why will with without you your'
  ).split(' '),
);

export interface QueryTerms {
  /** Lexemes to match exactly. */
  lexemes: string[];
  /** Lexemes matched as prefixes (the last, unfinished identifier of the query). */
  prefixes: string[];
}

/** Shortest prefix searched as a prefix (shorter ones match too much to rank). */
const MIN_PREFIX = 3;
/** At most this many lexemes per query (a pasted file is not a query). */
const MAX_QUERY_LEXEMES = 32;

/**
 * The terms of a query. Every identifier gives its lexemes; English filler words are dropped when something else
 * remains; two to four plain words are also joined (`parse request body` → parserequestbody) so a description
 * written as words meets the identifier; the last token, unless the query ends in a space, is also a prefix.
 */
export function queryTerms(q: string): QueryTerms {
  const toks = tokens(q);
  const meaningful = toks.filter((t) => !QUERY_STOP.has(t.toLowerCase()));
  const used = meaningful.length > 0 ? meaningful : toks;
  const lexemes: string[] = [];
  const push = (l: string) => {
    if (l !== '' && l.length <= MAX_LEXEME && !lexemes.includes(l) && lexemes.length < MAX_QUERY_LEXEMES)
      lexemes.push(l);
  };
  for (const t of used) for (const l of identifierLexemes(t)) push(l);
  if (used.length >= 2 && used.length <= 4) push(used.flatMap((t) => splitIdentifier(t)).join(''));
  const prefixes: string[] = [];
  const last = toks.at(-1);
  if (last !== undefined && !/\s$/.test(q) && q.trimEnd().endsWith(last)) {
    const whole = splitIdentifier(last).join('');
    if (whole.length >= MIN_PREFIX && whole.length <= MAX_LEXEME) prefixes.push(whole);
  }
  return { lexemes, prefixes };
}

/** The tsquery literal that matches any of the terms (OR), or null when there is none. */
export function toTsQuery(terms: QueryTerms): string | null {
  const parts = [...terms.lexemes.map((l) => `'${l}'`), ...terms.prefixes.map((p) => `'${p}':*`)];
  return parts.length === 0 ? null : parts.join(' | ');
}

/** Whether a token of a text matches the query terms (for marking snippets). */
export function tokenMatches(token: string, terms: QueryTerms): boolean {
  const lex = identifierLexemes(token);
  if (lex.some((l) => terms.lexemes.includes(l))) return true;
  const whole = lex[0];
  return whole !== undefined && terms.prefixes.some((p) => whole.startsWith(p));
}
