/**
 * search: files by meaning (GET /api/graph/search), or chunks and symbols (GET /api/graph/search/chunks and
 * /symbols, the search issue's routes; until they are deployed the call answers the service's 404 as a tool error).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Api } from '../api.ts';
import { fitList } from '../fit.ts';
import { safely } from './common.ts';

const FILE_TYPES = ['source', 'test', 'config', 'script', 'doc', 'data', 'asset', 'service'] as const;

interface SearchAnswer {
  results?: unknown[];
  items?: unknown[];
}

export function registerSearch(server: McpServer, api: Api): void {
  server.registerTool(
    'search',
    {
      title: 'Search the code graph',
      description:
        'Semantic search over the newest completed sync of every source. kind=files (default) finds files by ' +
        'meaning; kind=chunks finds passages of code or text; kind=symbols finds functions, classes and methods by ' +
        'name. Results carry node ids for get_node, read_file, impact and summarize_file.',
      inputSchema: {
        query: z.string().min(1).max(2000).describe('What to look for, in words or code.'),
        kind: z.enum(['files', 'chunks', 'symbols']).default('files'),
        type: z.enum(FILE_TYPES).optional().describe('Files only: restrict to this file type.'),
        source_id: z.string().uuid().optional().describe('Chunks and symbols: restrict to this source.'),
        limit: z.number().int().min(1).max(50).default(10),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ query, kind, type, source_id, limit }) =>
      safely(async () => {
        const path = kind === 'files' ? '/api/graph/search' : `/api/graph/search/${kind}`;
        const q = kind === 'files' ? { q: query, type, limit } : { q: query, source_id, limit };
        const answer = await api.call<SearchAnswer>('GET', path, { query: q });
        const results = answer.results ?? answer.items ?? [];
        return fitList({ kind, query }, 'results', results, { offset: 0, total: results.length });
      }),
  );
}
