/**
 * Chunk search: lexical (the identifier-aware full-text index, content_chunks.search_terms), semantic (chunk
 * embeddings, HNSW by cosine distance) and hybrid (both, reciprocal rank fusion). Each ranking reads at most DEPTH
 * chunks; pages walk the fused list with a keyset cursor (score, chunk id) bound to the query it came from.
 *
 * Figures on the Go standard library (54k chunks): docs/benchmarks.md, "Search latency".
 */
import { createHash } from 'node:crypto';
import { toVectorLiteral } from '../../lib/db.ts';
import { InvalidArgumentError } from '../../lib/errors.ts';
import { decodeCursorJson, toPage } from '../../lib/http.ts';
import { encodeNodeId } from '../../lib/node-id.ts';
import { queryTerms, toTsQuery, type QueryTerms } from '../../lib/search-terms.ts';
import type { ReadTx } from '../db/read.ts';
import { compareFused, FUSION, fuse, queryShape, RRF, type FusedHit, type Ranked } from './fusion.ts';
import type { ChunkSearchParams } from './params.ts';
import { resolveSyncIds } from './scope.ts';
import { termStats, type TermStats } from './term-stats.ts';
import { buildSnippet, type Snippet } from './snippet.ts';
import { chunksOfNamed, namedFiles, type NameMatch } from './names.ts';

/** Hits read from each ranking: the fused list (and so the pages) ends after at most 2 × DEPTH hits. */
export const DEPTH = 50;
/** ts_rank weights for D, C, B, A: body, (unused), breadcrumb (path, enclosing constructs), the chunk's symbols. */
const RANK_WEIGHTS = '{0.1, 0.2, 0.4, 1.0}';

export interface ChunkHit {
  node_id: string;
  chunk_id: string;
  chunk_index: number;
  source_id: string;
  sync_id: string;
  file_id: string;
  file_path: string;
  language: string;
  file_type: string;
  start_line: number;
  end_line: number;
  chunk_type: string;
  symbols: string[];
  score: number;
  scores: { lexical: FusedHit['lexical']; semantic: FusedHit['semantic']; name: NameHit['name'] };
  snippet: Snippet;
  /** The source's `owner/name`, to label the hit. */
  repository: string;
}

/** Names first: a hit found by the file's name or path, or as the definition of the queried identifier. */
export interface NameHit extends FusedHit {
  name: { rank: number; match: NameMatch } | null;
}

/** Name hits read per search (they come before every ranked hit). */
export const NAME_HITS = 10;
/** A name hit's score: above any fused score (at most 2 / (RRF_K + 1)), descending with its rank. */
const nameScore = (rank: number) => 2 - rank / 100;

export interface ChunkSearchResult {
  items: ChunkHit[];
  next_cursor: string | null;
  meta: { mode: string; sync_ids: string[]; terms: string[]; prefixes: string[] };
}

/** The filters shared by both rankings, as SQL over `c` (content_chunks) with parameters from $first on. */
function filterSql(p: ChunkSearchParams, first: number): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const conds: string[] = [];
  const next = (v: unknown) => {
    params.push(v);
    return `$${first + params.length - 1}`;
  };
  if (p.language !== undefined) conds.push(`c.language = ${next(p.language)}`);
  if (p.chunkType !== undefined) conds.push(`c.chunk_type = ${next(p.chunkType)}`);
  const fileConds: string[] = [];
  if (p.fileType !== undefined) fileConds.push(`f.type = ${next(p.fileType)}`);
  if (p.pathPrefix !== undefined && p.pathPrefix !== '')
    fileConds.push(`starts_with(f.file_path, ${next(p.pathPrefix)})`);
  if (fileConds.length > 0) {
    conds.push(`EXISTS (SELECT 1 FROM file_records f WHERE f.id = c.file_id AND ${fileConds.join(' AND ')})`);
  }
  return { sql: conds.map((c) => ` AND ${c}`).join(''), params };
}

/**
 * A lexeme in at least this fraction of chunks, and in at least COMMON_TERM_CHUNKS of them, does not select candidates
 * (it still counts in the ranking): reading its chunks would cost more than they tell. In a small sync every term
 * selects.
 */
export const COMMON_TERM = 0.05;
export const COMMON_TERM_CHUNKS = 200;
/** At most this many candidates are ranked (a query of only common words selects more). */
export const MAX_CANDIDATES = 1000;
/**
 * When too few chunks hold every rare term, the others come from the query's rarest terms only: as many of them,
 * rarest first, as the searched syncs hold in at most this many chunks together (estimated; at least the rarest one).
 * Before, any rare term selected, and the first 1,000 chunks in the table's order were ranked: for a long query over
 * the Go standard library an arbitrary sample of thousands, read from as many heap pages.
 */
export const LOOSE_CHUNKS = 400;
/** BM25's term-frequency saturation and length normalisation (the usual values). */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
/**
 * ts_rank of one lexeme occurring once in the body (weight D, 0.1: ts_rank divides by the sum of 1/i², π²/6): a
 * term's weighted frequency is its ts_rank over this, so a body occurrence counts 1, one in the breadcrumb 4, one in
 * the chunk's symbols 10, and repeats add less and less (BM25F's field weights, applied before saturation).
 */
const TF_UNIT = 0.1 / (Math.PI ** 2 / 6);

export interface LexicalQueries {
  /** Candidates: the rarest terms (LOOSE_CHUNKS), or every term when all are common. */
  match: string;
  /** Candidates first: every rare term (two or more). */
  strict: string | null;
  /** The ranked terms, one tsquery each, with their idf. */
  terms: string[];
  idf: number[];
  /** Mean chunk length of the searched syncs (0 when they have no statistics). */
  avgTokens: number;
}

/** BM25's idf (the non-negative form): ln(1 + (N − df + 0.5) / (df + 0.5)). */
export function idf(chunks: number, df: number): number {
  const n = Math.max(chunks, df);
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/**
 * Candidates come from the query's rare terms (the rarest of them, LOOSE_CHUNKS), or, when every term is common, from
 * chunks holding all of them; chunks holding every rare term are read first. At most MAX_CANDIDATES are then ranked by BM25 over every
 * term (lib/search-terms.ts: identifier sub-words, joined words, the last word as a prefix), the term frequency
 * weighted by where the term occurs (symbols, breadcrumb, body), the idf from the searched syncs' statistics.
 */
export function lexicalQueries(terms: QueryTerms, stats: TermStats): LexicalQueries | null {
  const any = toTsQuery(terms);
  if (any === null) return null;
  const isRare = (l: string) => (stats.frequency(l) ?? 0) < COMMON_TERM || (stats.df(l) ?? 0) < COMMON_TERM_CHUNKS;
  const rare = terms.lexemes.filter(isRare);
  // A prefix selects when it is long enough and its whole word is not common (`string` would read ~20,000 Go chunks).
  const rarePrefixes = terms.prefixes.filter((p) => p.length >= 4 && isRare(p));
  const dfOf = (l: string) => stats.df(l) ?? stats.rareDf;
  // The loose candidates: the rarest terms within LOOSE_CHUNKS (a prefix counts its whole word's chunks).
  const byRarity = [...rare.map((l) => ({ l, prefix: false })), ...rarePrefixes.map((l) => ({ l, prefix: true }))].sort(
    (a, b) => dfOf(a.l) - dfOf(b.l) || (a.l < b.l ? -1 : 1),
  );
  const loose: typeof byRarity = [];
  let budget = 0;
  for (const t of byRarity) {
    if (loose.length > 0 && budget + dfOf(t.l) > LOOSE_CHUNKS) break;
    loose.push(t);
    budget += dfOf(t.l);
  }
  const selective = toTsQuery({
    lexemes: loose.filter((t) => !t.prefix).map((t) => t.l),
    prefixes: loose.filter((t) => t.prefix).map((t) => t.l),
  });
  const all = [...terms.lexemes.map((l) => `'${l}'`), ...terms.prefixes.map((p) => `'${p}':*`)].join(' & ');
  // Chunks holding every rare word come first; the others only fill up when those are too few.
  const strict = rare.length >= 2 ? rare.map((l) => `'${l}'`).join(' & ') : null;
  // The unfinished last word ranks as a prefix, in place of the same whole word (counted once); its frequency is at
  // least the whole word's.
  const words = terms.lexemes.filter((l) => !terms.prefixes.includes(l));
  const chunks = stats.chunks > 0 ? stats.chunks : 1_000_000;
  return {
    match: selective ?? all,
    strict,
    terms: [...words.map((l) => `'${l}'`), ...terms.prefixes.map((p) => `'${p}':*`)],
    idf: [...words.map((l) => idf(chunks, dfOf(l))), ...terms.prefixes.map((p) => idf(chunks, dfOf(p)))],
    avgTokens: stats.avgTokens,
  };
}

/**
 * The filters as conditions on `k` (file_content_chunks) and on the sync's file record `s` (sync_files) with its
 * content `fc` (file_contents), as parameters added to `params`.
 */
function chunkFilterSql(p: ChunkSearchParams, params: unknown[]): { chunk: string; file: string } {
  const next = (v: unknown) => `$${params.push(v)}`;
  const chunk: string[] = [];
  const file: string[] = [];
  if (p.language !== undefined) chunk.push(`k.language = ${next(p.language)}`);
  if (p.chunkType !== undefined) chunk.push(`k.chunk_type = ${next(p.chunkType)}`);
  if (p.fileType !== undefined) {
    file.push(`EXISTS (SELECT 1 FROM file_contents fc WHERE fc.id = s.content_id AND fc.type = ${next(p.fileType)})`);
  }
  if (p.pathPrefix !== undefined && p.pathPrefix !== '') file.push(`starts_with(s.file_path, ${next(p.pathPrefix)})`);
  const and = (xs: string[]) => xs.map((c) => ` AND ${c}`).join('');
  return { chunk: and(chunk), file: and(file) };
}

/**
 * The lexical ranking in one pass over the candidates: each candidate's row is read once, where the full-text index
 * finds it, and scored there (BM25). A candidate is a chunk of the shared table (one row per chunk, whichever syncs
 * hold it) that one of the searched syncs holds: the sync's file record of the chunk's content, probed in the index
 * led by content_id then sync_id (V46), before the row is scored. A query selecting (id, value), value the BM25
 * score; `params` starts with the searched syncs ($1) and gets the ranking's own.
 */
function lexicalSql(q: LexicalQueries, p: ChunkSearchParams, params: unknown[]): string {
  const next = (v: unknown) => `$${params.push(v)}`;
  const match = next(q.match);
  const strict = next(q.strict);
  const avg = next(q.avgTokens || 1);
  // BM25: per term, tf = ts_rank of the term alone / TF_UNIT, saturated with the chunk's length (token_count) against
  // the mean.
  const termParams = q.terms.map((t, i) => ({ term: next(t), idf: next(q.idf[i]) }));
  const f = chunkFilterSql(p, params);
  const tf = termParams.map((t, i) => `ts_rank('${RANK_WEIGHTS}', c.t, ${t.term}::tsquery, 0) / ${TF_UNIT} AS tf${i}`);
  const score = termParams
    .map((t, i) => `${t.idf}::float8 * x.tf${i} * ${BM25_K1 + 1} / (x.tf${i} + ${BM25_K1} * x.norm)`)
    .join(' + ');
  // The terms are read out of the row once (`|| ''` makes a plain in-memory copy; the subquery's LIMIT keeps it a
  // subquery): ts_rank detoasts its argument on every call, and nearly half of the Go chunks' terms are stored
  // compressed, so a ten-term message decompressed each candidate's terms ten times.
  const candidates = (query: string, cond: string) => `
       SELECT c.id, ${tf.join(', ')}, 1 - ${BM25_B} + ${BM25_B} * c.token_count / greatest(${avg}::float8, 1) AS norm
         FROM (SELECT k.id, k.search_terms || ''::tsvector AS t, k.token_count
                 FROM file_content_chunks k
                WHERE k.search_terms @@ ${query}::tsquery${f.chunk}
                  AND EXISTS (SELECT 1 FROM sync_files s
                               WHERE s.content_id = k.content_id AND s.sync_id = ANY($1::uuid[])${f.file})
                  AND ${cond}
                LIMIT ${MAX_CANDIDATES}) c`;
  return `WITH strict AS MATERIALIZED (${candidates(strict, `${strict}::tsquery IS NOT NULL`)}
     ), loose AS (${candidates(match, `(SELECT count(*) FROM strict) < ${DEPTH}`)}
     ), cand AS (
       SELECT * FROM strict UNION ALL SELECT * FROM loose l WHERE NOT EXISTS (SELECT 1 FROM strict t WHERE t.id = l.id)
     )
     SELECT x.id, ${score} AS value FROM cand x ORDER BY value DESC, x.id LIMIT ${DEPTH}`;
}

/**
 * The semantic ranking: the chunks nearest the query by either of their vectors, the content's (spec rule 7) or the
 * key text's (schema V54: names and messages in words), each chunk at the nearer of the two. Two index scans of
 * DEPTH rows each, merged. A query selecting (id, value), value the cosine distance; `params` as lexicalSql's.
 */
function semanticSql(vector: readonly number[], p: ChunkSearchParams, params: unknown[]): string {
  const v = `$${params.push(toVectorLiteral(vector))}`;
  const f = filterSql(p, params.length + 1);
  params.push(...f.params);
  const nearest = (column: string) => `(
       SELECT c.id, c.${column} <=> ${v}::vector AS distance
         FROM content_chunks c
        WHERE c.sync_id = ANY($1::uuid[]) AND c.${column} IS NOT NULL${f.sql}
        ORDER BY c.${column} <=> ${v}::vector
        LIMIT ${DEPTH})`;
  return `SELECT r.id, min(r.distance) AS value
       FROM (${nearest('embedding')} UNION ALL ${nearest('key_embedding')}) r
      GROUP BY r.id ORDER BY value, r.id LIMIT ${DEPTH}`;
}

/**
 * Both rankings (either may be absent) in one statement: one round trip, and one of the read transaction's timeout
 * settings, less per hybrid search. Lexical best first (score descending), semantic nearest first (distance
 * ascending), each then by id, as each ranking's own ORDER BY has it (a union does not keep its parts' order).
 */
async function rankings(
  tx: ReadTx,
  syncIds: string[],
  q: LexicalQueries | null,
  vector: readonly number[] | null,
  p: ChunkSearchParams,
): Promise<{ lexical: Ranked<unknown>[]; semantic: Ranked<unknown>[] }> {
  const params: unknown[] = [syncIds];
  const parts: string[] = [];
  if (q !== null) parts.push(`SELECT 'l' AS r, l.id, l.value FROM (${lexicalSql(q, p, params)}) l`);
  if (vector !== null) parts.push(`SELECT 's' AS r, s.id, s.value FROM (${semanticSql(vector, p, params)}) s`);
  if (parts.length === 0) return { lexical: [], semantic: [] };
  const res = await tx.query<{ r: 'l' | 's'; id: string; value: number }>(parts.join(' UNION ALL '), params);
  const byId = (a: Ranked<unknown>, b: Ranked<unknown>) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const pick = (r: 'l' | 's') =>
    res.rows.filter((x) => x.r === r).map((x): Ranked<unknown> => ({ id: x.id, value: x.value }));
  return {
    lexical: pick('l').sort((a, b) => b.value - a.value || byId(a, b)),
    semantic: pick('s').sort((a, b) => a.value - b.value || byId(a, b)),
  };
}

interface DetailRow {
  id: string;
  chunk_index: number;
  content: string;
  start_line: number;
  end_line: number;
  chunk_type: string;
  symbols: string[];
  language: string;
  sync_id: string;
  file_id: string;
  file_path: string;
  file_type: string;
  source_id: string;
  repository: string;
}

/**
 * A chunk id names a shared chunk row (schema V12): the same chunk in two syncs of a source has one id, so the
 * detail is read in the searched syncs only.
 */
async function details(tx: ReadTx, ids: string[], syncIds: string[]): Promise<Map<string, DetailRow>> {
  if (ids.length === 0) return new Map();
  // A statement of fixed text, prepared once per connection: planning its joins cost more than running it.
  const res = await tx.query<DetailRow>(
    {
      name: 'ckg_chunk_search_details',
      text: `SELECT c.id, c.chunk_index, c.content, c.start_line, c.end_line, c.chunk_type, c.symbols, c.language, c.sync_id,
            f.id AS file_id, f.file_path, f.type AS file_type, f.source_id, s.owner || '/' || s.name AS repository
       FROM content_chunks c JOIN file_records f ON f.id = c.file_id JOIN sources s ON s.id = f.source_id
      WHERE c.id = ANY($1::uuid[]) AND c.sync_id = ANY($2::uuid[])`,
    },
    [ids, syncIds],
  );
  return new Map(res.rows.map((r) => [r.id, r]));
}

/** Binds a cursor to its query: the same words, mode, filters and syncs, or the cursor is refused. */
function fingerprint(p: ChunkSearchParams, syncIds: string[]): string {
  const key = [p.q, p.mode, p.language, p.chunkType, p.fileType, p.pathPrefix, p.sourceId, syncIds.join(',')];
  return createHash('sha256').update(JSON.stringify(key)).digest('base64url').slice(0, 16);
}

interface ChunkCursor {
  s: number;
  id: string;
  h: string;
}

function afterCursor<T extends FusedHit>(hits: T[], raw: string | undefined, h: string): T[] {
  if (raw === undefined) return hits;
  const c = decodeCursorJson(raw) as Partial<ChunkCursor> | null;
  if (c === null || typeof c !== 'object' || typeof c.s !== 'number' || typeof c.id !== 'string' || c.h !== h) {
    throw new InvalidArgumentError('cursor', 'is not a cursor of this search (same q, mode, filters and syncs)');
  }
  const key = { score: c.s, id: c.id };
  return hits.filter((x) => compareFused(key, x) < 0);
}

/** Runs the search in one read transaction; `vector` is the embedded query (semantic and hybrid modes). */
export async function searchChunks(
  tx: ReadTx,
  p: ChunkSearchParams,
  vector: readonly number[] | null,
): Promise<ChunkSearchResult> {
  const terms: QueryTerms = queryTerms(p.q);
  const syncIds = await resolveSyncIds(tx, p);
  const h = fingerprint(p, syncIds);
  const meta = { mode: p.mode, sync_ids: syncIds, terms: terms.lexemes, prefixes: terms.prefixes };
  const queries = p.mode === 'semantic' ? null : lexicalQueries(terms, await termStats(tx, syncIds));
  let lexical: Ranked<unknown>[] = [];
  let semantic: Ranked<unknown>[] = [];
  if (syncIds.length > 0 && (queries !== null || (p.mode !== 'lexical' && vector !== null))) {
    // Both rankings' settings in one round trip. Lexical: with the candidate LIMIT the planner expects a sequential
    // scan to find enough rows soon, and reads (and decompresses) every chunk's terms until it does (1.3 s on the Go
    // standard library, against milliseconds through the GIN index). Semantic: pgvector's iterative scan, so filters
    // still fill the list.
    await tx.query(
      {
        name: 'ckg_chunk_search_settings',
        text: `SELECT set_config('enable_seqscan', 'off', true), set_config('hnsw.iterative_scan', 'relaxed_order', true),
                      set_config('hnsw.ef_search', $1, true)`,
      },
      [String(2 * DEPTH)],
    );
    ({ lexical, semantic } = await rankings(tx, syncIds, queries, p.mode !== 'lexical' ? vector : null, p));
  }
  // Names first (lexical and hybrid): the file the query names, or the definition of the identifier it is.
  const named =
    p.mode === 'semantic' || syncIds.length === 0
      ? []
      : await chunksOfNamed(tx, await namedFiles(tx, syncIds, p.q, p, NAME_HITS), p.chunkType);
  const seen = new Set<string>();
  const nameHits: NameHit[] = [];
  for (const n of named) {
    if (seen.has(n.chunkId)) continue;
    seen.add(n.chunkId);
    const rank = nameHits.length + 1;
    nameHits.push({
      id: n.chunkId,
      score: nameScore(rank),
      lexical: null,
      semantic: null,
      name: { rank, match: n.file.match },
    });
  }
  const weights = p.mode === 'hybrid' ? FUSION[queryShape(p.q)] : RRF;
  const ranked: NameHit[] = fuse(lexical, semantic, weights).map((x) => ({ ...x, name: null }));
  for (const x of ranked) {
    const n = nameHits.find((y) => y.id === x.id);
    if (n) {
      n.lexical = x.lexical;
      n.semantic = x.semantic;
    }
  }
  const all = [...nameHits, ...ranked.filter((x) => !seen.has(x.id))].sort(compareFused);
  const fused = afterCursor(all, p.cursor, h);
  const pageIds = fused.slice(0, p.limit + 1);
  // limit + 1 rows: the extra one says whether another page follows (toPage). A chunk deleted since the ranking
  // (a purge in between) is left out.
  const rows = await details(
    tx,
    pageIds.map((x) => x.id),
    syncIds,
  );
  const page = toPage(
    pageIds.filter((x) => rows.has(x.id)),
    p.limit,
    (x): ChunkHit => {
      const r = rows.get(x.id)!;
      return {
        node_id: encodeNodeId(r.source_id, r.file_path),
        chunk_id: r.id,
        chunk_index: r.chunk_index,
        source_id: r.source_id,
        sync_id: r.sync_id,
        file_id: r.file_id,
        file_path: r.file_path,
        language: r.language,
        file_type: r.file_type,
        start_line: r.start_line,
        end_line: r.end_line,
        chunk_type: r.chunk_type,
        symbols: r.symbols,
        score: x.score,
        scores: { lexical: x.lexical, semantic: x.semantic, name: x.name },
        snippet: buildSnippet(r.content, r.start_line, terms),
        repository: r.repository,
      };
    },
    (x): ChunkCursor => ({ s: x.score, id: x.id, h }),
  );
  return { ...page, meta };
}
