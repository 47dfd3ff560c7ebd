/**
 * Search, declared once (lib/api/route.ts): the specification's file search by meaning, files names first, chunks
 * (lexical, semantic or hybrid) and symbols by name. The graph component mounts them (graph-api/search/routes.ts);
 * its document and the client's types derive from these. The parameters are read in the order the component always
 * read them (the first problem is the one named).
 */
import { z } from 'zod';
import { InvalidArgumentError } from '../../errors.ts';
import { FILE_TYPES } from '../../file-types.ts';
import { queryEnum, queryString } from '../../validate.ts';
import { param, query } from '../fields.ts';
import { route } from '../route.ts';
import { errorReply, INVALID_PARAMETER, READ_TIMEOUT } from './errors.ts';
import { uuid } from '../schemas.ts';
import { MAX_SYNC_IDS, parseSyncIds } from './graph.ts';

const E404 = errorReply('NOT_FOUND: a named sync (details.unknown_sync_ids) or source does not exist.');

export const CHUNK_MODES = ['lexical', 'semantic', 'hybrid'] as const;
export type ChunkMode = (typeof CHUNK_MODES)[number];
export const CHUNK_TYPES = [
  'function',
  'method',
  'class',
  'interface',
  'struct',
  'enum',
  'impl',
  'trait',
  'module',
  'namespace',
  'heading',
  'paragraph',
  'line',
  'block',
] as const;
export const SYMBOL_MATCHES = ['exact', 'prefix', 'fuzzy'] as const;
export type SymbolMatch = (typeof SYMBOL_MATCHES)[number];
export const SYMBOL_KINDS = ['function', 'class', 'method'] as const;
export const SEARCH_PAGE = { default: 20, min: 1, max: 100 } as const;
export const MAX_QUERY_CHARS = 2000;

/** `q`: required, at most `max` characters, not blank, no NUL. */
const q = (description: string, max = MAX_QUERY_CHARS) =>
  param({ schema: { type: 'string', minLength: 1, maxLength: max }, description, required: true }, (query, n) => {
    const v = queryString(query, n, { required: true, maxLength: max })!;
    if (v.trim() === '') throw new InvalidArgumentError(n, 'must not be blank');
    if (v.includes('\0')) throw new InvalidArgumentError(n, 'must not contain NUL characters');
    return v;
  });

const withDefault = <T extends string>(description: string, values: readonly T[], fallback: T) =>
  param(
    { schema: { enum: values, default: fallback }, description },
    (query, n) => queryEnum(query, n, values) ?? fallback,
  );

const sourceId = () =>
  query.uuid("Only this source (default: every source). Without sync_ids: the source's newest completed sync.");
const syncIds = (description: string) =>
  param({ schema: { type: 'string' }, description }, (query, n) => {
    const raw = query[n];
    return raw === undefined || raw === '' ? undefined : parseSyncIds(raw);
  });
const SCOPE_SYNC_IDS =
  `Comma-separated sync ids (at most ${MAX_SYNC_IDS}) to search, any status. Default: each source's newest ` +
  'completed sync.';

/** The scope of chunk and symbol search: language and path prefix, then source and syncs. */
const scope = () => ({
  language: param(
    {
      schema: { type: 'string', maxLength: 100 },
      description: 'Only this language (as detected: go, python, typescript, markdown, …).',
    },
    (query, n) => queryString(query, n, { maxLength: 100 })?.toLowerCase(),
  ),
  path_prefix: param(
    {
      schema: { type: 'string', maxLength: 1000 },
      description: 'Only files whose path starts with this (no leading slash).',
    },
    (query, n) => {
      const v = queryString(query, n, { maxLength: 1000 });
      if (v?.includes('\0')) throw new InvalidArgumentError(n, 'must not contain NUL characters');
      return v?.replace(/^\/+/, '');
    },
  ),
  source_id: sourceId(),
  sync_ids: syncIds(SCOPE_SYNC_IDS),
});
const cursor = () => query.string('next_cursor of the previous page of the same search.', { maxLength: 2000 });

// ---------------------------------------------------------------------------------------------------- responses

export const FILE_MATCHES = ['path', 'path_suffix', 'file_name', 'file_prefix', 'meaning'] as const;

export const FileHit = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  language: z.string(),
  description: z.string().nullable(),
  distance: z.number().nullable().describe('null only for a name match without embedding'),
  file_path: z.string(),
  source_id: uuid(),
  sync_id: uuid(),
  repository: z.string().describe("The source's owner/name."),
  match: z.enum(FILE_MATCHES).optional().describe('/api/graph/search/files only: how the file was found.'),
});
export type FileHit = z.infer<typeof FileHit>;

export const SearchResults = z.object({ results: z.array(FileHit) }).meta({ id: 'SearchResults' });
export type SearchResults = z.infer<typeof SearchResults>;

const rank = () => z.int();
export const ChunkHit = z
  .object({
    node_id: z.string(),
    chunk_id: uuid(),
    chunk_index: z.int(),
    source_id: uuid(),
    sync_id: uuid(),
    file_id: uuid(),
    file_path: z.string(),
    language: z.string(),
    file_type: z.string(),
    start_line: z.int(),
    end_line: z.int(),
    chunk_type: z.string(),
    symbols: z.array(z.string()),
    score: z
      .number()
      .describe(
        "Single modes: 1/(60 + rank). Hybrid: the fusion of the query's shape over both rankings. Names-first hits: " +
          '2 − rank/100 (above every fused score).',
      ),
    scores: z.object({
      lexical: z
        .object({
          rank: rank(),
          score: z.number().describe("BM25 over the searched syncs' term statistics"),
        })
        .nullable(),
      semantic: z
        .object({ rank: rank(), distance: z.number().describe("cosine distance (the chunk's nearer vector)") })
        .nullable(),
      name: z
        .object({
          rank: rank(),
          match: z.enum(['path', 'path_suffix', 'file_name', 'file_prefix', 'definition', 'definition_prefix']),
        })
        .nullable()
        .describe('Found by name: the file the query names, or the definition of the identifier it is.'),
    }),
    repository: z.string().describe("The source's owner/name."),
    snippet: z
      .object({
        start_line: z.int(),
        end_line: z.int(),
        text: z.string(),
        highlights: z
          .array(z.tuple([z.int(), z.int()]))
          .describe('Matched identifiers as [start, end) offsets into text (UTF-16 code units).'),
        marked: z.string().describe('text with each match wrapped in « and ».'),
      })
      .describe('Up to 5 body lines holding the most query terms.'),
  })
  .meta({ id: 'ChunkHit' });
export type ChunkHit = z.infer<typeof ChunkHit>;

export const ChunkSearchPage = z
  .object({
    items: z.array(ChunkHit),
    next_cursor: z.string().nullable(),
    meta: z.object({
      mode: z.enum(CHUNK_MODES),
      sync_ids: z.array(uuid()),
      terms: z.array(z.string()).describe('Lexemes searched (identifiers split).'),
      prefixes: z.array(z.string()).describe('Lexemes searched as prefixes.'),
      query_ms: z.int().describe('Database time, the embedding call excluded.'),
      embed_ms: z.int().describe('Time of the embedding call (0 in lexical mode).'),
    }),
  })
  .meta({ id: 'ChunkSearchPage' });
export type ChunkSearchPage = z.infer<typeof ChunkSearchPage>;

export const SymbolHit = z
  .object({
    symbol_id: z.string(),
    name: z.string(),
    kind: z.string(),
    line: z.int(),
    match: z.enum(SYMBOL_MATCHES),
    score: z.number().describe('pg_trgm word_similarity of q to the name.'),
    node_id: z.string().describe('The defining file.'),
    symbol: z
      .string()
      .nullable()
      .describe(
        'The symbol’s address: its detail is GET /api/graph/symbol?symbol=<this>&sync_id=<sync_id> (null for ' +
          'symbols stored before symbols had keys).',
      ),
    file_id: uuid(),
    file_path: z.string(),
    language: z.string(),
    file_type: z.string(),
    source_id: uuid(),
    sync_id: uuid(),
    repository: z.string().describe("The source's owner/name."),
  })
  .meta({ id: 'SymbolHit' });
export type SymbolHit = z.infer<typeof SymbolHit>;

export const SymbolSearchPage = z
  .object({
    items: z.array(SymbolHit),
    next_cursor: z.string().nullable(),
    meta: z.object({ match: z.enum(SYMBOL_MATCHES), sync_ids: z.array(uuid()), query_ms: z.int() }),
  })
  .meta({ id: 'SymbolSearchPage' });
export type SymbolSearchPage = z.infer<typeof SymbolSearchPage>;

// ------------------------------------------------------------------------------------------------------- routes

const fileType = (description: string) => query.enum(description, FILE_TYPES);

export const searchFilesByMeaning = route({
  method: 'GET',
  path: '/api/graph/search',
  summary: 'Semantic search over files',
  description:
    "q is embedded as `search_query: <q>` (cut to 1400 characters). Searched: each source's newest completed " +
    "sync (or source_id's, or the sync_ids named). Approximate nearest neighbours (HNSW, cosine), returned in " +
    'ascending exact cosine distance. /api/graph/search/files puts the files the query names first.',
  query: {
    q: q('The query.'),
    type: fileType('Only files of this type.'),
    limit: query.int('How many results.', SEARCH_PAGE),
    source_id: query.uuid("Only this source's newest completed sync."),
    sync_ids: syncIds(`Comma-separated sync ids (at most ${MAX_SYNC_IDS}) to search, any status.`),
  },
  success: { status: 200, description: 'Results', schema: SearchResults },
  responses: {
    400: INVALID_PARAMETER,
    404: E404,
    503: errorReply('UPSTREAM_UNAVAILABLE: the embedding endpoint failed'),
    504: READ_TIMEOUT,
  },
});

export const searchFiles = route({
  method: 'GET',
  path: '/api/graph/search/files',
  summary: 'Search files: names first, then meaning',
  description:
    'The files whose path is q, ends with `/<q>`, or whose base name is q (any case) or starts with it, first ' +
    "(`match`: path, path_suffix, file_name, file_prefix); then the specification's search by meaning over the " +
    'same scope (`match`: meaning, ascending cosine distance), without repeats. Results carry the fields of ' +
    '/api/graph/search plus file_path, source_id, sync_id, repository (`owner/name`) and match.',
  query: {
    q: q('A file name, path or words.'),
    type: fileType('Only files of this type.'),
    limit: query.int('How many results.', SEARCH_PAGE),
    source_id: sourceId(),
    sync_ids: syncIds(SCOPE_SYNC_IDS),
  },
  success: { status: 200, description: 'Results', schema: SearchResults },
  responses: {
    400: INVALID_PARAMETER,
    404: E404,
    503: errorReply('UPSTREAM_UNAVAILABLE: the embedding endpoint failed.'),
    504: READ_TIMEOUT,
  },
});

export const searchChunks = route({
  method: 'GET',
  path: '/api/graph/search/chunks',
  summary: 'Search chunks: lexical, semantic or hybrid (reciprocal rank fusion)',
  description:
    "Names first (lexical and hybrid): when q is a file name or path (or the end of one), that file's first " +
    'chunk, and when q is an identifier (`NewReader`, `bufio.NewReader`), the chunk holding its definition, come ' +
    'before every ranked hit (`scores.name`). ' +
    '`lexical` ranks by BM25 over the identifier-aware full-text index (`parseRequestBody`, `parse_request_body` ' +
    'and "parse request body" meet; the unfinished last word also matches as a prefix; English filler words are ' +
    "dropped; rarity from each sync's term statistics). `semantic` ranks by cosine distance to the query's embedding " +
    "(`search_query: <q>`, its identifiers written as words) of each chunk's nearer vector: its content's, or its key " +
    "text's (the names it defines and the messages it holds, in words). `hybrid` (default) fuses both with the " +
    "fusion of the query's shape (short / long / message, told from its text): weighted reciprocal rank fusion or " +
    'a convex combination of the two scores, chosen by the evaluation (graph-api/search/fusion.ts FUSION). ' +
    'Each ranking reads at most 50 chunks (graph-api/search/chunks.ts DEPTH); pages walk the fused list (score ' +
    'descending, chunk id ascending).',
  query: {
    q: q('The query.'),
    mode: withDefault('Ranking.', CHUNK_MODES, 'hybrid'),
    ...scope(),
    file_type: fileType('Only chunks of files of this type.'),
    chunk_type: query.enum('Only chunks of this type.', CHUNK_TYPES),
    limit: query.int('Page size.', SEARCH_PAGE),
    cursor: cursor(),
  },
  success: { status: 200, description: 'A page of hits', schema: ChunkSearchPage },
  responses: {
    400: INVALID_PARAMETER,
    404: E404,
    503: errorReply('UPSTREAM_UNAVAILABLE: the embedding endpoint failed (semantic and hybrid).'),
    504: READ_TIMEOUT,
  },
});

export const searchSymbols = route({
  method: 'GET',
  path: '/api/graph/search/symbols',
  summary: 'Search symbols by name',
  description:
    'Case-insensitive. `exact`: the name; `prefix`: names starting with q; `fuzzy` (default): exact, then prefix, ' +
    'then names containing q, then names close to q by trigrams (pg_trgm word_similarity). Ordered by that tier, ' +
    'word similarity, shorter names first. Each hit names its defining file (node_id) and line.',
  query: {
    q: q('The name or part of it.', 200),
    match: withDefault('How q matches names.', SYMBOL_MATCHES, 'fuzzy'),
    kind: query.enum('Only symbols of this kind.', SYMBOL_KINDS),
    ...scope(),
    limit: query.int('Page size.', SEARCH_PAGE),
    cursor: cursor(),
  },
  success: { status: 200, description: 'A page of hits', schema: SymbolSearchPage },
  responses: { 400: INVALID_PARAMETER, 404: E404, 504: READ_TIMEOUT },
});

export const SEARCH_ROUTES = [searchFilesByMeaning, searchFiles, searchChunks, searchSymbols] as const;
