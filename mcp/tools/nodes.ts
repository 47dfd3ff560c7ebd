/** get_node (detail with neighbours, paginated), summarize_file. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { request, type Api } from '../../lib/api/client.ts';
import { getNode, getSummary } from '../../lib/api/routes/nodes.ts';
import { fitList, jsonResult } from '../fit.ts';
import { nodeId, offset, safely, syncId } from './common.ts';

export function registerNodes(server: McpServer, api: Api): void {
  server.registerTool(
    'get_node',
    {
      title: 'A file node with its neighbours',
      description:
        'The file record (path, type, language, size, line count, cached description, content hash) and its ' +
        'neighbours in the graph: depends_on edges out (files it imports) and in (files importing it), defines ' +
        'edges to its symbols (with kind and line).',
      inputSchema: {
        node_id: nodeId,
        sync_id: syncId,
        offset,
        limit: z.number().int().min(1).max(500).default(100).describe('Most neighbours in this answer.'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ node_id, sync_id, offset, limit }) =>
      safely(async () => {
        const d = await request(api, getNode, { params: { node_id }, query: { sync_id } });
        const page = d.neighbors.slice(offset, offset + limit);
        return fitList({ node: d.node, neighbor_count: d.neighbors.length }, 'neighbors', page, {
          offset,
          total: d.neighbors.length,
        });
      }),
  );

  server.registerTool(
    'summarize_file',
    {
      title: 'A short summary of a file',
      description:
        'A paragraph on what the file does, written by the service’s language model with the file’s graph ' +
        'neighbours as context, and cached (source=cache) until force=true. Can take up to a minute when not cached.',
      inputSchema: {
        node_id: nodeId,
        sync_id: syncId,
        force: z.boolean().default(false).describe('Write a new summary even when one is cached.'),
      },
      annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: false },
    },
    ({ node_id, sync_id, force }) =>
      safely(async () =>
        jsonResult(await request(api, getSummary, { params: { node_id }, query: { sync_id, force } })),
      ),
  );
}
