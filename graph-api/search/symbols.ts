/**
 * Symbol search by name, case-insensitive: `exact` (the name), `prefix` (names starting with q) and `fuzzy` (the
 * default: exact, then prefix, then names containing q, then names whose trigrams are close to q's, pg_trgm's
 * word_similarity). Ordered by that tier, then word similarity (q as a whole word of the name first: `read` shows
 * `read_all` before `reader`), then shorter names first, then name, sync, file path and the symbol's position in its
 * file. Names are found once per file content (file_content_symbols, schema V20: a btree with pattern ops for exact
 * and prefix, a trigram GIN for fuzzy), then joined to the syncs that hold the content; each hit is the Symbol vertex
 * that sync's graph has for it (same symbol_id, name, kind, line), naming its defining file (node id, file record).
 * A cleaned sync has no graph, so no symbols.
 */
import { InvalidArgumentError } from '../../lib/errors.ts';
import { decodeCursorJson, toPage } from '../../lib/http.ts';
import { encodeNodeId } from '../../lib/node-id.ts';
import type { ReadTx } from '../db/read.ts';
import type { SymbolSearchParams } from './params.ts';
import { resolveSyncIds } from './scope.ts';

/** Shortest query searched by trigrams (shorter ones have no trigram of their own). */
const MIN_FUZZY = 3;
const TIERS = ['exact', 'exact', 'prefix', 'fuzzy', 'fuzzy'] as const;

export interface SymbolHit {
  symbol_id: string;
  name: string;
  kind: string;
  line: number;
  match: (typeof TIERS)[number];
  /** pg_trgm word_similarity of q to the name (1 for an exact match). */
  score: number;
  node_id: string;
  /**
   * The symbol's address for GET /api/graph/symbol (`src_<source_id>:<path>#<key>`, issue 28); null for a symbol
   * stored before symbols had keys.
   */
  symbol: string | null;
  file_id: string;
  file_path: string;
  language: string;
  file_type: string;
  source_id: string;
  sync_id: string;
  /** The source's `owner/name`, to label the hit. */
  repository: string;
}

interface Row {
  ordinal: number;
  tier: number;
  sim: number;
  len: number;
  key: string;
  symbol_id: string;
  symbol_key: string | null;
  name: string;
  kind: string;
  line: number;
  file_id: string;
  file_path: string;
  language: string;
  file_type: string;
  source_id: string;
  sync_id: string;
  repository: string;
}

/** Sort key of a hit (tier, -similarity, length, lower-case name, sync, path, ordinal); the cursor holds the last one's. */
type Key = [number, number, number, string, string, string, number];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => '\\' + c);

function parseCursor(raw: string | undefined): Key | null {
  if (raw === undefined) return null;
  const c = decodeCursorJson(raw);
  if (
    Array.isArray(c) &&
    c.length === 7 &&
    typeof c[0] === 'number' &&
    typeof c[1] === 'number' &&
    typeof c[2] === 'number' &&
    typeof c[3] === 'string' &&
    typeof c[4] === 'string' &&
    UUID.test(c[4]) &&
    typeof c[5] === 'string' &&
    Number.isInteger(c[6])
  ) {
    return c as Key;
  }
  throw new InvalidArgumentError('cursor', 'is not a cursor this service issued');
}

export async function searchSymbols(
  tx: ReadTx,
  p: SymbolSearchParams,
): Promise<{ items: SymbolHit[]; next_cursor: string | null; meta: { match: string; sync_ids: string[] } }> {
  const syncIds = await resolveSyncIds(tx, p);
  const meta = { match: p.match, sync_ids: syncIds };
  const after = parseCursor(p.cursor);
  if (syncIds.length === 0) return { items: [], next_cursor: null, meta };
  const lq = p.q.toLowerCase();
  const params: unknown[] = [syncIds, lq, p.q, p.limit + 1];
  const next = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const key = 'lower(k.name)';
  const nameCond =
    p.match === 'exact'
      ? `${key} = $2`
      : p.match === 'prefix' || lq.length < MIN_FUZZY
        ? `${key} LIKE ${next(escapeLike(lq) + '%')}`
        : `(${key} LIKE ${next('%' + escapeLike(lq) + '%')} OR $2 <% ${key})`;
  const extra: string[] = [];
  if (p.kind !== undefined) extra.push(`r.kind = ${next(p.kind)}`);
  if (p.language !== undefined) extra.push(`c.language = ${next(p.language)}`);
  if (p.pathPrefix !== undefined && p.pathPrefix !== '') extra.push(`starts_with(r.file_path, ${next(p.pathPrefix)})`);
  if (after) {
    extra.push(
      `(r.tier, -r.sim, r.len, r.key, r.sync_id, r.file_path, r.ordinal) > ` +
        `(${after.map((v, i) => next(v) + (i === 4 ? '::uuid' : '')).join(', ')})`,
    );
  }
  const res = await tx.query<Row>(
    `WITH syncs AS (
       SELECT id FROM sync_runs WHERE id = ANY($1::uuid[]) AND status <> 'cleaned'
     ), cand AS (
       SELECT k.content_id, k.ordinal, k.name, ${key} AS key, k.kind, k.line, k.key AS symbol_key
         FROM file_content_symbols k
        WHERE ${nameCond}
     ), r AS (
       SELECT cand.*, f.id AS file_id, f.sync_id, f.file_path, f.source_id,
              CASE WHEN cand.name = $3 THEN 0 WHEN cand.key = $2 THEN 1 WHEN starts_with(cand.key, $2) THEN 2
                   WHEN strpos(cand.key, $2) > 0 THEN 3 ELSE 4 END AS tier,
              round(word_similarity($2, cand.key)::numeric, 4)::float8 AS sim,
              length(cand.key) AS len
         FROM cand JOIN sync_files f ON f.content_id = cand.content_id
        WHERE f.sync_id IN (SELECT id FROM syncs)
     )
     SELECT r.file_id || ':' || r.name || ':' || r.line AS symbol_id, r.*, c.language, c.type AS file_type,
            (SELECT s.owner || '/' || s.name FROM sources s WHERE s.id = r.source_id) AS repository
       FROM r JOIN file_contents c ON c.id = r.content_id
      WHERE true${extra.map((e) => ` AND ${e}`).join('')}
      ORDER BY r.tier, -r.sim, r.len, r.key, r.sync_id, r.file_path, r.ordinal
      LIMIT $4`,
    params,
  );
  const page = toPage(
    res.rows,
    p.limit,
    (r): SymbolHit => ({
      symbol_id: r.symbol_id,
      name: r.name,
      kind: r.kind,
      line: r.line,
      match: TIERS[r.tier]!,
      score: r.sim,
      node_id: encodeNodeId(r.source_id, r.file_path),
      symbol: r.symbol_key === null ? null : `${encodeNodeId(r.source_id, r.file_path)}#${r.symbol_key}`,
      file_id: r.file_id,
      file_path: r.file_path,
      language: r.language,
      file_type: r.file_type,
      source_id: r.source_id,
      sync_id: r.sync_id,
      repository: r.repository,
    }),
    (r): Key => [r.tier, -r.sim, r.len, r.key, r.sync_id, r.file_path, r.ordinal],
  );
  return { ...page, meta };
}
