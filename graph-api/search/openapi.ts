/** OpenAPI paths and schemas of chunk and symbol search, spread into the graph component's document. */
import { errorResponse, json, queryParam, ref, uuid } from '../../lib/openapi.ts';
import { CHUNK_MODES, CHUNK_TYPES, MAX_QUERY_CHARS, SEARCH_PAGE, SYMBOL_KINDS, SYMBOL_MATCHES } from './params.ts';
import { FILE_TYPES } from '../../lib/file-types.ts';
import { DEPTH } from './chunks.ts';
import { RRF_K } from './fusion.ts';

const E400 = errorResponse('INVALID_ARGUMENT: `error.field` names the parameter.');
const E404 = errorResponse('NOT_FOUND: a named sync (details.unknown_sync_ids) or source does not exist.');
const E504 = errorResponse('TIMEOUT: the read exceeded GRAPH_QUERY_TIMEOUT_SECONDS.');

const scopeParams = [
  queryParam(
    'source_id',
    uuid,
    "Only this source (default: every source). Without sync_ids: the source's newest completed sync.",
  ),
  queryParam(
    'sync_ids',
    { type: 'string' },
    "Comma-separated sync ids (at most 50) to search, any status. Default: each source's newest completed sync.",
  ),
  queryParam('language', { type: 'string' }, 'Only this language (as detected: go, python, typescript, markdown, …).'),
  queryParam('path_prefix', { type: 'string' }, 'Only files whose path starts with this (no leading slash).'),
];
const pageParams = [
  queryParam('limit', { type: 'integer', ...SEARCH_PAGE }, 'Page size.'),
  queryParam('cursor', { type: 'string' }, 'next_cursor of the previous page of the same search.'),
];

export const searchPaths = {
  '/api/graph/search/files': {
    get: {
      summary: 'Search files: names first, then meaning',
      description:
        'The files whose path is q, ends with `/<q>`, or whose base name is q (any case) or starts with it, first ' +
        "(`match`: path, path_suffix, file_name, file_prefix); then the specification's search by meaning over the " +
        'same scope (`match`: meaning, ascending cosine distance), without repeats. Results carry the fields of ' +
        '/api/graph/search plus file_path, source_id, sync_id, repository (`owner/name`) and match.',
      parameters: [
        queryParam(
          'q',
          { type: 'string', minLength: 1, maxLength: MAX_QUERY_CHARS },
          'A file name, path or words.',
          true,
        ),
        queryParam('type', { enum: FILE_TYPES }, 'Only files of this type.'),
        scopeParams[0]!,
        scopeParams[1]!,
        queryParam('limit', { type: 'integer', ...SEARCH_PAGE }, 'How many results.'),
      ],
      responses: {
        200: { description: 'Results', content: json(ref('SearchResults')) },
        400: E400,
        404: E404,
        503: errorResponse('UPSTREAM_UNAVAILABLE: the embedding endpoint failed.'),
        504: E504,
      },
    },
  },
  '/api/graph/search/chunks': {
    get: {
      summary: 'Search chunks: lexical, semantic or hybrid (reciprocal rank fusion)',
      description:
        "Names first (lexical and hybrid): when q is a file name or path (or the end of one), that file's first " +
        'chunk, and when q is an identifier (`NewReader`, `bufio.NewReader`), the chunk holding its definition, come ' +
        'before every ranked hit (`scores.name`). ' +
        '`lexical` ranks by the identifier-aware full-text index (ts_rank; `parseRequestBody`, `parse_request_body` ' +
        'and "parse request body" meet; the unfinished last word also matches as a prefix; English filler words are ' +
        "dropped). `semantic` ranks by cosine distance of chunk embeddings to the query's (embedded as " +
        `\`search_query: <q>\`). \`hybrid\` (default) fuses both: score = Σ 1/(${RRF_K} + rank). Each ranking reads ` +
        `at most ${DEPTH} chunks; pages walk the fused list (score descending, chunk id ascending).`,
      parameters: [
        queryParam('q', { type: 'string', minLength: 1, maxLength: MAX_QUERY_CHARS }, 'The query.', true),
        queryParam('mode', { enum: CHUNK_MODES, default: 'hybrid' }, 'Ranking.'),
        ...scopeParams,
        queryParam('file_type', { enum: FILE_TYPES }, 'Only chunks of files of this type.'),
        queryParam('chunk_type', { enum: CHUNK_TYPES }, 'Only chunks of this type.'),
        ...pageParams,
      ],
      responses: {
        200: { description: 'A page of hits', content: json(ref('ChunkSearchPage')) },
        400: E400,
        404: E404,
        503: errorResponse('UPSTREAM_UNAVAILABLE: the embedding endpoint failed (semantic and hybrid).'),
        504: E504,
      },
    },
  },
  '/api/graph/search/symbols': {
    get: {
      summary: 'Search symbols by name',
      description:
        'Case-insensitive. `exact`: the name; `prefix`: names starting with q; `fuzzy` (default): exact, then prefix, ' +
        'then names containing q, then names close to q by trigrams (pg_trgm word_similarity). Ordered by that tier, ' +
        'word similarity, shorter names first. Each hit names its defining file (node_id) and line.',
      parameters: [
        queryParam('q', { type: 'string', minLength: 1, maxLength: 200 }, 'The name or part of it.', true),
        queryParam('match', { enum: SYMBOL_MATCHES, default: 'fuzzy' }, 'How q matches names.'),
        queryParam('kind', { enum: SYMBOL_KINDS }, 'Only symbols of this kind.'),
        ...scopeParams,
        ...pageParams,
      ],
      responses: {
        200: { description: 'A page of hits', content: json(ref('SymbolSearchPage')) },
        400: E400,
        404: E404,
        504: E504,
      },
    },
  },
};

const nullable = (schema: object) => ({ oneOf: [schema, { type: 'null' }] });

export const searchSchemas = {
  ChunkHit: {
    type: 'object',
    properties: {
      node_id: { type: 'string' },
      chunk_id: uuid,
      chunk_index: { type: 'integer' },
      source_id: uuid,
      sync_id: uuid,
      file_id: uuid,
      file_path: { type: 'string' },
      language: { type: 'string' },
      file_type: { type: 'string' },
      start_line: { type: 'integer' },
      end_line: { type: 'integer' },
      chunk_type: { type: 'string' },
      symbols: { type: 'array', items: { type: 'string' } },
      score: { type: 'number', description: `Fused score: Σ 1/(${RRF_K} + rank) over the rankings that found it.` },
      scores: {
        type: 'object',
        properties: {
          lexical: nullable({
            type: 'object',
            properties: {
              rank: { type: 'integer' },
              score: { type: 'number', description: 'ts_rank, plus 1 when the chunk holds every rare query word' },
            },
          }),
          semantic: nullable({
            type: 'object',
            properties: { rank: { type: 'integer' }, distance: { type: 'number', description: 'cosine distance' } },
          }),
          name: nullable({
            type: 'object',
            description: 'Found by name: the file the query names, or the definition of the identifier it is.',
            properties: {
              rank: { type: 'integer' },
              match: {
                enum: ['path', 'path_suffix', 'file_name', 'file_prefix', 'definition', 'definition_prefix'],
              },
            },
          }),
        },
      },
      repository: { type: 'string', description: "The source's owner/name." },
      snippet: {
        type: 'object',
        description: 'Up to 5 body lines holding the most query terms.',
        properties: {
          start_line: { type: 'integer' },
          end_line: { type: 'integer' },
          text: { type: 'string' },
          highlights: {
            type: 'array',
            description: 'Matched identifiers as [start, end) offsets into text (UTF-16 code units).',
            items: { type: 'array', items: { type: 'integer' }, minItems: 2, maxItems: 2 },
          },
          marked: { type: 'string', description: 'text with each match wrapped in « and ».' },
        },
      },
    },
  },
  ChunkSearchPage: {
    type: 'object',
    properties: {
      items: { type: 'array', items: ref('ChunkHit') },
      next_cursor: { type: ['string', 'null'] },
      meta: {
        type: 'object',
        properties: {
          mode: { enum: CHUNK_MODES },
          sync_ids: { type: 'array', items: uuid },
          terms: { type: 'array', items: { type: 'string' }, description: 'Lexemes searched (identifiers split).' },
          prefixes: { type: 'array', items: { type: 'string' }, description: 'Lexemes searched as prefixes.' },
          query_ms: { type: 'integer', description: 'Database time, the embedding call excluded.' },
          embed_ms: { type: 'integer', description: 'Time of the embedding call (0 in lexical mode).' },
        },
      },
    },
  },
  SymbolHit: {
    type: 'object',
    properties: {
      symbol_id: { type: 'string' },
      name: { type: 'string' },
      kind: { type: 'string' },
      line: { type: 'integer' },
      match: { enum: ['exact', 'prefix', 'fuzzy'] },
      score: { type: 'number', description: 'pg_trgm word_similarity of q to the name.' },
      node_id: { type: 'string', description: 'The defining file.' },
      symbol: {
        type: ['string', 'null'],
        description:
          'The symbol’s address: its detail is GET /api/graph/symbol?symbol=<this>&sync_id=<sync_id> (null for ' +
          'symbols stored before symbols had keys).',
      },
      file_id: uuid,
      file_path: { type: 'string' },
      language: { type: 'string' },
      file_type: { type: 'string' },
      source_id: uuid,
      sync_id: uuid,
      repository: { type: 'string', description: "The source's owner/name." },
    },
  },
  SymbolSearchPage: {
    type: 'object',
    properties: {
      items: { type: 'array', items: ref('SymbolHit') },
      next_cursor: { type: ['string', 'null'] },
      meta: {
        type: 'object',
        properties: {
          match: { enum: SYMBOL_MATCHES },
          sync_ids: { type: 'array', items: uuid },
          query_ms: { type: 'integer' },
        },
      },
    },
  },
};
