/**
 * Symbol search over the graph's Symbol vertices, by name, case-insensitive: `exact` (the name), `prefix` (names
 * starting with q) and `fuzzy` (the default: exact, then prefix, then names containing q, then names whose trigrams
 * are close to q's, pg_trgm's word_similarity). Ordered by that tier, then word similarity (q as a whole word of
 * the name first: `read` shows `read_all` before `reader`), then shorter names first. Names are found through two
 * expression indexes on the label table (V13): a btree with pattern ops (exact, prefix) and a trigram GIN (fuzzy).
 * Each hit names its defining file (node id, file record) and line.
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
  file_id: string;
  file_path: string;
  language: string;
  file_type: string;
  source_id: string;
  sync_id: string;
}

interface Row {
  gid: string;
  tier: number;
  sim: number;
  len: number;
  key: string;
  symbol_id: string;
  name: string;
  kind: string;
  line: number;
  file_id: string;
  file_path: string;
  language: string;
  file_type: string;
  source_id: string;
  sync_id: string;
}

/** Sort key of a hit; the cursor holds the last one's. */
type Key = [number, number, number, string, string];

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => '\\' + c);
const prop = (name: string) => `ag_catalog.agtype_access_operator(s.properties, '"${name}"'::ag_catalog.agtype)::text`;

function parseCursor(raw: string | undefined): Key | null {
  if (raw === undefined) return null;
  const c = decodeCursorJson(raw);
  if (
    Array.isArray(c) &&
    c.length === 5 &&
    typeof c[0] === 'number' &&
    typeof c[1] === 'number' &&
    typeof c[2] === 'number' &&
    typeof c[3] === 'string' &&
    typeof c[4] === 'string'
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
  const key = 'symbol_name_key(s.properties)';
  const nameCond =
    p.match === 'exact'
      ? `${key} = $2`
      : p.match === 'prefix' || lq.length < MIN_FUZZY
        ? `${key} LIKE ${next(escapeLike(lq) + '%')}`
        : `(${key} LIKE ${next('%' + escapeLike(lq) + '%')} OR $2 <% ${key})`;
  const extra: string[] = [];
  if (p.kind !== undefined) extra.push(`r.kind = ${next(p.kind)}`);
  if (p.language !== undefined) extra.push(`f.language = ${next(p.language)}`);
  if (p.pathPrefix !== undefined && p.pathPrefix !== '') extra.push(`starts_with(f.file_path, ${next(p.pathPrefix)})`);
  if (after) extra.push(`(r.tier, -r.sim, r.len, r.key, r.gid) > (${after.map((v) => next(v)).join(', ')})`);
  const res = await tx.query<Row>(
    `WITH cand AS (
       SELECT s.id::text AS gid, symbol_name_key(s.properties) AS key, ${prop('name')} AS name,
              ${prop('kind')} AS kind, (${prop('line')})::int AS line, ${prop('symbol_id')} AS symbol_id,
              (${prop('file_id')})::uuid AS file_id, ${prop('sync_id')} AS sync_id
         FROM service."Symbol" s
        WHERE ${nameCond}
     ), r AS (
       SELECT cand.*,
              CASE WHEN cand.name = $3 THEN 0 WHEN cand.key = $2 THEN 1 WHEN starts_with(cand.key, $2) THEN 2
                   WHEN strpos(cand.key, $2) > 0 THEN 3 ELSE 4 END AS tier,
              round(word_similarity($2, cand.key)::numeric, 4)::float8 AS sim,
              length(cand.key) AS len
         FROM cand
        WHERE cand.sync_id = ANY($1::text[])
     )
     SELECT r.*, f.file_path, f.language, f.type AS file_type, f.source_id
       FROM r JOIN file_records f ON f.id = r.file_id
      WHERE true${extra.map((e) => ` AND ${e}`).join('')}
      ORDER BY r.tier, -r.sim, r.len, r.key, r.gid
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
      file_id: r.file_id,
      file_path: r.file_path,
      language: r.language,
      file_type: r.file_type,
      source_id: r.source_id,
      sync_id: r.sync_id,
    }),
    (r): Key => [r.tier, -r.sim, r.len, r.key, r.gid],
  );
  return { ...page, meta };
}
