/**
 * The search reads' parameters as the search code takes them, from the query the route declarations
 * (lib/api/routes/search.ts) validate: every failure is a 400 naming the parameter, in the order declared.
 */
import { readParams, type Input } from '../../lib/api/route.ts';
import { searchChunks, searchSymbols, type searchFiles } from '../../lib/api/routes/search.ts';

export type { ChunkMode, SymbolMatch } from '../../lib/api/routes/search.ts';

type Query = Record<string, string | string[] | undefined>;

/** Where to search: an explicit list of syncs, or each source's (or one source's) newest completed sync. */
export interface Scope {
  sourceId: string | undefined;
  syncIds: string[] | undefined;
  language: string | undefined;
  pathPrefix: string | undefined;
}

type ChunkQuery = Input<typeof searchChunks>['query'];
type SymbolQuery = Input<typeof searchSymbols>['query'];
type FileQuery = Input<typeof searchFiles>['query'];

export interface ChunkSearchParams extends Scope {
  q: string;
  mode: ChunkQuery['mode'];
  fileType: string | undefined;
  chunkType: string | undefined;
  limit: number;
  cursor: string | undefined;
}

export interface SymbolSearchParams extends Scope {
  q: string;
  match: SymbolQuery['match'];
  kind: string | undefined;
  limit: number;
  cursor: string | undefined;
}

/** File search (the specification's route and the names-first one): q, type, limit, and the scope. */
export interface FileSearchParams {
  q: string;
  type: string | undefined;
  limit: number;
  scope: Scope;
}

const scopeOf = (q: { source_id?: string; sync_ids?: string[]; language?: string; path_prefix?: string }): Scope => ({
  sourceId: q.source_id,
  syncIds: q.sync_ids,
  language: q.language,
  pathPrefix: q.path_prefix,
});

export function fileSearchParams(q: FileQuery): FileSearchParams {
  return { q: q.q, type: q.type, limit: q.limit, scope: scopeOf(q) };
}

export function chunkSearchParams(q: ChunkQuery): ChunkSearchParams {
  return {
    q: q.q,
    mode: q.mode,
    ...scopeOf(q),
    fileType: q.file_type,
    chunkType: q.chunk_type,
    limit: q.limit,
    cursor: q.cursor,
  };
}

export function symbolSearchParams(q: SymbolQuery): SymbolSearchParams {
  return { q: q.q.trim(), match: q.match, kind: q.kind, ...scopeOf(q), limit: q.limit, cursor: q.cursor };
}

/** Chunk search's parameters from a raw query (benchmarks call the search code without HTTP). */
export const parseChunkSearchParams = (query: Query) => chunkSearchParams(readParams(searchChunks.query, query));
export const parseSymbolSearchParams = (query: Query) => symbolSearchParams(readParams(searchSymbols.query, query));
