/**
 * read_file: the file text (GET /api/graph/nodes/{id}/file), a line range of it, with line numbers. The answer is
 * cut at a line boundary to fit a tool answer, and then says which start_line to ask for next.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Api } from '../api.ts';
import { errorResult, MAX_CHARS, textResult } from '../fit.ts';
import { nodeId, nodePath, safely, syncId } from './common.ts';

interface FileText {
  content: string;
  truncated: boolean;
  sync_id: string;
}

export function renderLines(
  id: string,
  file: FileText,
  range: { start: number; end?: number; numbers: boolean },
  max = MAX_CHARS,
): string {
  const lines = file.content.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const total = lines.length;
  const end = Math.min(range.end ?? total, total);
  const width = String(end).length;
  const out: string[] = [];
  let size = 0;
  let last = range.start - 1;
  for (let n = range.start; n <= end; n++) {
    const line = range.numbers ? `${String(n).padStart(width)}\t${lines[n - 1]}` : lines[n - 1]!;
    if (size + line.length + 1 > max && out.length > 0) break;
    out.push(line.length > max ? line.slice(0, max) + ' [line cut]' : line);
    size += line.length + 1;
    last = n;
  }
  const notes: string[] = [];
  if (range.start > total) notes.push(`the file has ${total} lines; start_line ${range.start} is past the end`);
  if (last < end)
    notes.push(`cut to fit: showing lines ${range.start}-${last}; call again with start_line=${last + 1}`);
  if (file.truncated) notes.push('the service cut this file at 5 MiB: lines past that are not available');
  const head = `# ${id} (sync ${file.sync_id}) lines ${range.start}-${last} of ${total}`;
  return [head, ...out, ...notes.map((n) => `# note: ${n}`)].join('\n');
}

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
        const file = await api.call<FileText>('GET', nodePath(node_id, '/file'), { query: { sync_id } });
        return textResult(renderLines(node_id, file, { start: start_line, end: end_line, numbers: line_numbers }));
      }),
  );
}
