/** Pieces every tool uses: the input fields that recur, and the wrapper that turns a failed call into a tool error. */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ApiError } from '../../lib/api/client.ts';
import { errorResult } from '../fit.ts';

export const nodeId = z
  .string()
  .min(1)
  .describe('A node id `src_<source_id>:<file_path>` as returned by search, impact or get_node.');
export const uuid = (what: string) => z.string().uuid().describe(what);
export const syncId = uuid(
  'The sync to read. Default: the newest completed sync of the source holding the file.',
).optional();
export const offset = z.number().int().min(0).default(0).describe('Items to skip (from a previous answer’s note).');

/** Runs a tool body; a service error becomes an error result naming its code, status and message. */
export async function safely(run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof ApiError) {
      const field = err.field ? ` (parameter ${err.field})` : '';
      const details = err.details ? ` ${JSON.stringify(err.details)}` : '';
      return errorResult(`${err.code} (HTTP ${err.status})${field}: ${err.message}${details}`);
    }
    throw err;
  }
}
