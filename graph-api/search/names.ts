/**
 * Names first (issue 32): a query that is a file name or path (or the end of one) finds that file, and a query that
 * is an identifier finds its definition, before anything ranked by words or meaning, as a developer used to a code
 * host's search expects (typing `routing.py` or `NewReader` goes to the thing of that name).
 *
 * - Path-like queries (one token holding `/` or ending in `.ext`): the scoped syncs' files whose path is the query,
 *   ends with `/<query>`, or (case-insensitively) has it as its base name or the end of its path; then base names
 *   starting with it. One sync's files are read through its (sync_id, file_path) key.
 * - Identifier queries (one token, optionally qualified: `bufio.NewReader`, `Foo::bar`, `Foo#bar`), or two to four
 *   plain words that together spell one (`mkdir all`, `go max procs`): the symbols of that name in any of its
 *   spellings (`decode_rune` finds `DecodeRune`, `continue as new` finds `continueAsNew`, `addApiRoute` finds
 *   `add_api_route`: the lower-case name, its words joined, its words joined by `_`; file_content_symbols' lower(name)
 *   btree), same case first, the most qualifier parts naming the file's folders, its base name or the symbol's
 *   container first, source files before tests, a file named after the definition, top-level definitions before
 *   members, shorter paths first; when no name matches exactly, names that start with the query (4+ characters). Each
 *   is read as the smallest chunk holding the definition's line.
 */
import { splitIdentifier } from '../../lib/search-terms.ts';
import type { ReadTx } from '../db/read.ts';

export type NameMatch = 'path' | 'path_suffix' | 'file_name' | 'file_prefix' | 'definition' | 'definition_prefix';

export interface NameQuery {
  kind: 'path' | 'identifier';
  /** Path-like: the query without a leading `./` or `/`. Identifier: the name itself. */
  text: string;
  /** Identifier: the qualifier before the name (`bufio` of `bufio.NewReader`), lower case. */
  qualifier: string | undefined;
  /**
   * Identifier: every part of the qualifier, lower case (`bufio`, `reader` of `bufio.Reader.Read`): each names the
   * definition's folder, its file's base name or its container (the symbol key's `Reader.` of `Reader.Read`).
   */
  qualifiers?: string[];
  /** Path-like but also an identifier (`json.loads`, `routing.py`): definitions are looked up when no file is. */
  identifier?: NameQuery;
  /** Identifier: the lower-case names a definition of it may have (nameForms). */
  forms?: string[];
}

const PATH_LIKE = /^[^\s]*(\/[^\s]*|\.[A-Za-z0-9]{1,10})$/;
const IDENTIFIER = /^(?:([A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*)(?:\.|::|#))?([A-Za-z_$][\w$]*)(?:\(\))?$/;
/** Shortest name looked up by prefix when no symbol has exactly the query's name. */
const MIN_PREFIX = 4;
/** Words that may spell one name (`mkdir all`, `continue as new`): two to four, letters and digits only. */
const NAME_WORDS = /^[A-Za-z][A-Za-z0-9]*(?:\s+[A-Za-z][A-Za-z0-9]*){1,3}$/;

/**
 * The lower-case names a definition of the name `text` (or of these words) may have, as code spells one name in its
 * language's case: the name itself, and when it has two sub-words or more, its sub-words joined (`DecodeRune`,
 * `GOMAXPROCS`, `continueAsNew` are `decoderune`, `gomaxprocs`, `continueasnew` in lower case) and joined by `_`
 * (`decode_rune`).
 */
export function nameForms(text: string): string[] {
  const words = text.split(/\s+/).flatMap(splitIdentifier);
  const forms = new Set(/\s/.test(text) ? [] : [text.toLowerCase()]);
  if (words.length >= 2) {
    forms.add(words.join(''));
    forms.add(words.join('_'));
  }
  return [...forms];
}

export function nameQuery(q: string): NameQuery | null {
  const t = q.trim();
  if (NAME_WORDS.test(t)) {
    const joined = t.split(/\s+/).flatMap(splitIdentifier).join('');
    return { kind: 'identifier', text: joined, qualifier: undefined, qualifiers: [], forms: nameForms(t) };
  }
  if (t === '' || /\s/.test(t) || t.length > 500) return null;
  const id = IDENTIFIER.exec(t);
  const identifier: NameQuery | undefined = id
    ? {
        kind: 'identifier',
        text: id[2]!,
        qualifier: id[1]
          ?.split(/\.|::|#/)
          .at(-1)
          ?.toLowerCase(),
        qualifiers: id[1]?.toLowerCase().split(/\.|::|#/) ?? [],
        forms: nameForms(id[2]!),
      }
    : undefined;
  // `bufio.Reader` is an identifier; `src/app.ts` and `net/http` are paths; `routing.py` and `json.loads` may be
  // either (a short lower-case last part): the file first, else the definition.
  const ambiguous = id?.[1] !== undefined && /^[a-z0-9]{1,5}$/i.test(id[2]!) && !id[1].includes('.');
  if (identifier && !t.includes('/') && !ambiguous) return identifier;
  if (PATH_LIKE.test(t)) {
    return { kind: 'path', text: t.replace(/^\.?\/+/, ''), qualifier: undefined, ...(ambiguous ? { identifier } : {}) };
  }
  return identifier ?? null;
}

export interface NameFilter {
  language?: string | undefined;
  fileType?: string | undefined;
  pathPrefix?: string | undefined;
}

export interface NamedFile {
  sync_id: string;
  source_id: string;
  file_path: string;
  content_id: string;
  match: NameMatch;
  /** The defining line (identifier queries). */
  line: number | undefined;
  symbol: string | undefined;
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => '\\' + c);

function filterSql(f: NameFilter, params: unknown[], fAlias: string, cAlias: string): string {
  const next = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  let sql = '';
  if (f.language !== undefined) sql += ` AND ${cAlias}.language = ${next(f.language)}`;
  if (f.fileType !== undefined) sql += ` AND ${cAlias}.type = ${next(f.fileType)}`;
  if (f.pathPrefix !== undefined && f.pathPrefix !== '')
    sql += ` AND starts_with(${fAlias}.file_path, ${next(f.pathPrefix)})`;
  return sql;
}

const MATCHES: NameMatch[] = ['path', 'path_suffix', 'file_name', 'path_suffix', 'file_prefix'];

/** Files whose path or name is the query (path-like queries), best first. */
export async function filesByName(
  tx: ReadTx,
  syncIds: string[],
  text: string,
  filter: NameFilter,
  limit: number,
): Promise<NamedFile[]> {
  if (syncIds.length === 0) return [];
  const lower = text.toLowerCase();
  const params: unknown[] = [syncIds, text, lower, '%/' + escapeLike(lower), escapeLike(lower) + '%'];
  const extra = filterSql(filter, params, 'f', 'c');
  // The file's language and type live with its content: joined only when a filter needs them.
  const join =
    filter.language !== undefined || filter.fileType !== undefined
      ? ' JOIN file_contents c ON c.id = f.content_id'
      : '';
  params.push(limit);
  // Tiers: 0 the path, 1 ends with /query, 2 the base name (any case), 3 the end of the path (any case),
  // 4 a base name starting with the query (3+ characters, no slash in the query).
  const res = await tx.query<{
    sync_id: string;
    source_id: string;
    file_path: string;
    content_id: string;
    tier: number;
  }>(
    `SELECT * FROM (
       SELECT b.*,
              CASE WHEN b.file_path = $2 THEN 0
                   WHEN right(b.file_path, length($2) + 1) = '/' || $2 THEN 1
                   WHEN lower(b.base) = $3 THEN 2
                   WHEN lower(b.file_path) = $3 OR lower(b.file_path) LIKE $4 THEN 3
                   WHEN length($3) >= 3 AND strpos($3, '/') = 0 AND lower(b.base) LIKE $5 THEN 4 END AS tier
         FROM (
           SELECT f.sync_id, f.source_id, f.file_path, f.content_id,
                  CASE WHEN strpos(f.file_path, '/') = 0 THEN f.file_path
                       ELSE right(f.file_path, strpos(reverse(f.file_path), '/') - 1) END AS base
             FROM sync_files f${join}
            WHERE f.sync_id = ANY($1::uuid[])${extra}
         ) b
     ) r WHERE r.tier IS NOT NULL
     ORDER BY r.tier, length(r.file_path), r.file_path, r.sync_id
     LIMIT $${params.length}`,
    params,
  );
  return res.rows.map((r) => ({
    sync_id: r.sync_id,
    source_id: r.source_id,
    file_path: r.file_path,
    content_id: r.content_id,
    match: MATCHES[r.tier]!,
    line: undefined,
    symbol: undefined,
  }));
}

/** Definitions of the name (identifier queries), best first. */
export async function definitionsByName(
  tx: ReadTx,
  syncIds: string[],
  q: NameQuery,
  filter: NameFilter,
  limit: number,
): Promise<NamedFile[]> {
  if (syncIds.length === 0) return [];
  const forms = q.forms ?? [q.text.toLowerCase()];
  const run = async (prefix: boolean) => {
    const params: unknown[] = [syncIds, q.text, q.qualifiers ?? (q.qualifier !== undefined ? [q.qualifier] : [])];
    // A prefix per form, each a parameter of its own, so each reads its own range of the index (LIKE ANY of an array
    // would read the whole index).
    const nameCond = prefix
      ? `(${forms
          .filter((f) => f.length >= MIN_PREFIX)
          .map((f) => `lower(k.name) LIKE $${params.push(escapeLike(f) + '%')}`)
          .join(' OR ')})`
      : `lower(k.name) = ANY($${params.push(forms)}::text[])`;
    const extra = filterSql(filter, params, 'f', 'c');
    params.push(limit);
    // How many parts of the qualifier the definition answers to: a folder of its path, its file's base name (without
    // extension), or a container in its key (`Reader.Read:method` for `Reader.Read`; `bufio.Reader.Read` answers
    // with its folder and its type).
    const res = await tx.query<{
      sync_id: string;
      source_id: string;
      file_path: string;
      content_id: string;
      line: number;
      name: string;
    }>(
      `SELECT f.sync_id, f.source_id, f.file_path, f.content_id, k.line, k.name
         FROM file_content_symbols k
         JOIN sync_files f ON f.content_id = k.content_id
         JOIN file_contents c ON c.id = k.content_id
        WHERE ${nameCond} AND f.sync_id = ANY($1::uuid[])${extra}
        ORDER BY (k.name = $2) DESC, starts_with(k.name, $2) DESC,
                 (SELECT count(*) FROM unnest($3::text[]) AS qp(q)
                   WHERE strpos('/' || lower(f.file_path), '/' || qp.q || '/') > 0
                      OR lower(substring(f.file_path from '[^/]*$')) LIKE qp.q || '.%'
                      OR strpos('.' || lower(split_part(coalesce(k.key, ''), ':', 1)), '.' || qp.q || '.') > 0) DESC,
                 (c.type = 'source') DESC,
                 -- A file named after the definition (current-random.ts for currentRandom), then a top-level one.
                 (regexp_replace(regexp_replace(lower(substring(f.file_path from '[^/]*$')), '[.][^.]*$', ''),
                                 '[^a-z0-9]', '', 'g') = lower($2)) DESC,
                 (strpos(split_part(coalesce(k.key, ''), ':', 1), '.') = 0) DESC,
                 length(k.name), length(f.file_path), f.file_path, k.line, f.sync_id
        LIMIT $${params.length}`,
      params,
    );
    return res.rows.map((r): NamedFile => ({
      sync_id: r.sync_id,
      source_id: r.source_id,
      file_path: r.file_path,
      content_id: r.content_id,
      match: prefix ? 'definition_prefix' : 'definition',
      line: r.line,
      symbol: r.name,
    }));
  };
  const exact = await run(false);
  if (exact.length > 0 || forms.every((f) => f.length < MIN_PREFIX)) return exact;
  return run(true);
}

/** Named files for a query (path or identifier), or none when the query is neither. */
export async function namedFiles(
  tx: ReadTx,
  syncIds: string[],
  q: string,
  filter: NameFilter,
  limit: number,
): Promise<NamedFile[]> {
  const nq = nameQuery(q);
  if (nq === null) return [];
  if (nq.kind === 'identifier') return definitionsByName(tx, syncIds, nq, filter, limit);
  const files = await filesByName(tx, syncIds, nq.text, filter, limit);
  if (files.length > 0 || nq.identifier === undefined) return files;
  return definitionsByName(tx, syncIds, nq.identifier, filter, limit);
}

/**
 * The chunk to show for each named file: the smallest chunk holding the definition's line, or the file's first
 * chunk. Keyed by `${sync_id}:${content_id}:${line}` order of `files`.
 */
export async function chunksOfNamed(
  tx: ReadTx,
  files: NamedFile[],
  chunkType: string | undefined,
): Promise<Array<{ file: NamedFile; chunkId: string }>> {
  if (files.length === 0) return [];
  const res = await tx.query<{ i: number; id: string }>(
    {
      name: 'ckg_search_chunks_of_named',
      text: `SELECT n.i, k.id
       FROM unnest($1::uuid[], $2::int[]) WITH ORDINALITY AS n(content_id, line, i)
       CROSS JOIN LATERAL (
         SELECT k.id FROM file_content_chunks k
          WHERE k.content_id = n.content_id
            AND ($3::text IS NULL OR k.chunk_type = $3)
            AND (n.line IS NULL OR (k.start_line <= n.line AND k.end_line >= n.line))
          ORDER BY CASE WHEN n.line IS NULL THEN k.chunk_index ELSE k.end_line - k.start_line END, k.chunk_index
          LIMIT 1
       ) k`,
    },
    [files.map((f) => f.content_id), files.map((f) => f.line ?? null), chunkType ?? null],
  );
  const byIndex = new Map(res.rows.map((r) => [Number(r.i), r.id]));
  const out: Array<{ file: NamedFile; chunkId: string }> = [];
  files.forEach((file, i) => {
    const id = byIndex.get(i + 1);
    if (id !== undefined) out.push({ file, chunkId: id });
  });
  return out;
}
