/** list_sources (GET /api/sources), paginated with the service's cursor. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { request, type Api } from '../../lib/api/client.ts';
import { listSources } from '../../lib/api/routes/sources.ts';
import { fitList } from '../fit.ts';
import { safely } from './common.ts';

export const cursor = z.string().optional().describe('next_cursor of the previous answer, for the next page.');

export function registerSources(server: McpServer, api: Api): void {
  server.registerTool(
    'list_sources',
    {
      title: 'The repositories the service knows',
      description: 'Sources (repositories) with their id, owner/name, url, branch, and last sync. Newest first.',
      inputSchema: { cursor, limit: z.number().int().min(1).max(200).default(50) },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ cursor, limit }) =>
      safely(async () => {
        const page = await request(api, listSources, { query: { cursor, limit } });
        const items = page.items.map((s) => ({
          id: s.id,
          owner: s.owner,
          name: s.name,
          url: s.url,
          default_branch: s.default_branch,
          enabled: s.enabled,
          last_sync_id: s.last_sync_id,
          last_synced_at: s.last_synced_at,
        }));
        return fitList({ next_cursor: page.next_cursor }, 'sources', items, { offset: 0, total: items.length });
      }),
  );
}
