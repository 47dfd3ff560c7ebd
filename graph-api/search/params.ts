/**
 * Query parameters of chunk and symbol search, each parsed in one function so the parsing can move to the shared
 * validator in one place. Every failure is a 400 naming the parameter.
 */
import { InvalidArgumentError } from '../../lib/errors.ts';
import { queryEnum, queryInt, queryString, queryUuid } from '../../lib/http.ts';
import { parseSyncIds } from '../graph/params.ts';
import { FILE_TYPES } from '../../lib/file-types.ts';

type Query = Record<string, string | string[] | undefined>;

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

/** Where to search: an explicit list of syncs, or each source's (or one source's) newest completed sync. */
export interface Scope {
  sourceId: string | undefined;
  syncIds: string[] | undefined;
  language: string | undefined;
  pathPrefix: string | undefined;
}

export interface ChunkSearchParams extends Scope {
  q: string;
  mode: ChunkMode;
  fileType: string | undefined;
  chunkType: string | undefined;
  limit: number;
  cursor: string | undefined;
}

export interface SymbolSearchParams extends Scope {
  q: string;
  match: SymbolMatch;
  kind: string | undefined;
  limit: number;
  cursor: string | undefined;
}

function requiredQuery(query: Query, max = MAX_QUERY_CHARS): string {
  const q = queryString(query, 'q', { required: true, maxLength: max })!;
  if (q.trim() === '') throw new InvalidArgumentError('q', 'must not be blank');
  if (q.includes('\0')) throw new InvalidArgumentError('q', 'must not contain NUL characters');
  return q;
}

export function scope(query: Query): Scope {
  const raw = query.sync_ids;
  const language = queryString(query, 'language', { maxLength: 100 });
  const pathPrefix = queryString(query, 'path_prefix', { maxLength: 1000 });
  if (pathPrefix?.includes('\0')) throw new InvalidArgumentError('path_prefix', 'must not contain NUL characters');
  return {
    sourceId: queryUuid(query, 'source_id'),
    syncIds: raw === undefined || raw === '' ? undefined : parseSyncIds(raw),
    language: language?.toLowerCase(),
    pathPrefix: pathPrefix?.replace(/^\/+/, ''),
  };
}

/** File search (the specification's route and the names-first one): q, type, limit, and the scope. */
export interface FileSearchParams {
  q: string;
  type: string | undefined;
  limit: number;
  scope: Scope;
}

export function parseFileSearchParams(query: Query): FileSearchParams {
  const q = requiredQuery(query);
  return {
    q,
    type: queryEnum(query, 'type', FILE_TYPES),
    limit: queryInt(query, 'limit', SEARCH_PAGE),
    scope: { ...scope(query), language: undefined, pathPrefix: undefined },
  };
}

export function parseChunkSearchParams(query: Query): ChunkSearchParams {
  return {
    q: requiredQuery(query),
    mode: queryEnum(query, 'mode', CHUNK_MODES) ?? 'hybrid',
    ...scope(query),
    fileType: queryEnum(query, 'file_type', FILE_TYPES),
    chunkType: queryEnum(query, 'chunk_type', CHUNK_TYPES),
    limit: queryInt(query, 'limit', SEARCH_PAGE),
    cursor: queryString(query, 'cursor', { maxLength: 2000 }),
  };
}

export function parseSymbolSearchParams(query: Query): SymbolSearchParams {
  return {
    q: requiredQuery(query, 200).trim(),
    match: queryEnum(query, 'match', SYMBOL_MATCHES) ?? 'fuzzy',
    kind: queryEnum(query, 'kind', SYMBOL_KINDS),
    ...scope(query),
    limit: queryInt(query, 'limit', SEARCH_PAGE),
    cursor: queryString(query, 'cursor', { maxLength: 2000 }),
  };
}
