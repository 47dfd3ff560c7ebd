/**
 * search: files by meaning (GET /api/graph/search), passages (GET /api/graph/search/chunks) and symbols (GET
 * /api/graph/search/symbols). Answers are compacted for a model: a chunk becomes its node id, path, line range,
 * type and snippet text; a symbol its name, kind, node id, path and line.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { FILE_TYPES } from '../../lib/file-types.ts';
import { request, type Api } from '../../lib/api/client.ts';
import {
  searchChunks,
  searchFiles,
  searchSymbols,
  type ChunkHit,
  type SymbolHit,
} from '../../lib/api/routes/search.ts';
import { fitList } from '../fit.ts';
import { safely } from './common.ts';
import { cursor } from './sources.ts';

/** One chunk hit, as a model needs it. */
export function chunkBrief(c: ChunkHit) {
  return {
    node_id: c.node_id,
    repository: c.repository,
    file_path: c.file_path,
    lines: `${c.start_line}-${c.end_line}`,
    chunk_type: c.chunk_type,
    symbols: c.symbols,
    score: c.score,
    text: c.snippet.text,
  };
}

export function symbolBrief(s: SymbolHit) {
  return {
    name: s.name,
    kind: s.kind,
    node_id: s.node_id,
    repository: s.repository,
    file_path: s.file_path,
    line: s.line,
    match: s.match,
  };
}

const smaller = () => 'the rest did not fit: ask again with a smaller limit';

export function registerSearch(server: McpServer, api: Api): void {
  server.registerTool(
    'search',
    {
      title: 'Search the code graph',
      description:
        'Search the newest completed sync of every source (or of source_id). kind=files (default): the file ' +
        'the query names (a file name or path) first, then files by meaning; kind=chunks: passages of code or text (words and meaning), with line ranges; kind=symbols: ' +
        'functions, classes and methods by name. Results carry node ids for get_node, read_file, impact and ' +
        'summarize_file.',
      inputSchema: {
        query: z.string().min(1).max(2000).describe('What to look for, in words or code (symbols: a name).'),
        kind: z.enum(['files', 'chunks', 'symbols']).default('files'),
        type: z.enum(FILE_TYPES).optional().describe('files and chunks: only files of this type.'),
        source_id: z.string().uuid().optional().describe('only this source (every kind).'),
        cursor: cursor.describe('chunks and symbols: next_cursor of the previous answer.'),
        limit: z.number().int().min(1).max(50).default(10),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ query, kind, type, source_id, cursor, limit }) =>
      safely(async () => {
        if (kind === 'files') {
          const answer = await request(api, searchFiles, { query: { q: query, type, source_id, limit } });
          const results = answer.results;
          return fitList({ kind, query }, 'results', results, { offset: 0, total: results.length, more: smaller });
        }
        const page =
          kind === 'chunks'
            ? await request(api, searchChunks, { query: { q: query, source_id, file_type: type, limit, cursor } }).then(
                (a) => ({ next: a.next_cursor, results: a.items.map(chunkBrief) }),
              )
            : await request(api, searchSymbols, { query: { q: query, source_id, limit, cursor } }).then((a) => ({
                next: a.next_cursor,
                results: a.items.map(symbolBrief),
              }));
        const results: unknown[] = page.results;
        return fitList({ kind, query, next_cursor: page.next }, 'results', results, {
          offset: 0,
          total: results.length,
          more: smaller,
        });
      }),
  );
}
