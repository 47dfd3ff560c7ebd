/**
 * read_file: the file text (GET /api/graph/nodes/{id}/file), a line range of it, with line numbers. The answer is
 * cut at a line boundary to fit a tool answer, and then says which start_line to ask for next.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { request, type Api } from '../../lib/api/client.ts';
import { getFile } from '../../lib/api/routes/nodes.ts';
import { errorResult, textResult } from '../fit.ts';
import { renderLines } from '../lines.ts';
import { nodeId, safely, syncId } from './common.ts';

export function registerReadFile(server: McpServer, api: Api): void {
  server.registerTool(
    'read_file',
    {
      title: 'Read a file or a range of its lines',
      description:
        'The file’s text as stored by the sync, with line numbers (1-based). Give start_line/end_line to read a ' +
        'part; long answers are cut at a line and say where to continue.',
      inputSchema: {
        node_id: nodeId,
        sync_id: syncId,
        start_line: z.number().int().min(1).default(1),
        end_line: z.number().int().min(1).optional().describe('Last line to show (inclusive). Default: the end.'),
        line_numbers: z.boolean().default(true),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ node_id, sync_id, start_line, end_line, line_numbers }) =>
      safely(async () => {
        if (end_line !== undefined && end_line < start_line) {
          return errorResult(`end_line (${end_line}) is before start_line (${start_line})`);
        }
        const file = await request(api, getFile, { params: { node_id }, query: { sync_id } });
        return textResult(renderLines(node_id, file, { start: start_line, end: end_line, numbers: line_numbers }));
      }),
  );
}
