/**
 * The MCP server: one McpServer with the service's tools over an Api (api.ts). The gateway builds one per HTTP
 * request (stateless streamable HTTP, the caller's token in the Api); the CLI builds one for stdio.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Api } from '../lib/api/client.ts';
import { registerAnalysis, registerPrReport } from './tools/analysis.ts';
import { registerNodes } from './tools/nodes.ts';
import { registerReadFile } from './tools/read-file.ts';
import { registerSearch } from './tools/search.ts';
import { registerSources } from './tools/sources.ts';
import { registerSymbols } from './tools/symbols.ts';
import { registerSyncs } from './tools/syncs.ts';

export const SERVER_INFO = { name: 'code-knowledge-graph', version: '1.0.0' } as const;

const INSTRUCTIONS =
  'A code-knowledge graph of synced repositories. Files are nodes with ids `src_<source_id>:<path>`; depends_on ' +
  'edges link a file to the files it imports. Start with search (or list_sources), then get_node, read_file, ' +
  'impact (who is affected by a change to a file or a symbol), context (one function or type: definition, ' +
  'callers, callees, hierarchy, tests; symbols are `owner/name:<path>#<key>`) and diff (what changed between ' +
  'syncs). Long answers are cut with a note ' +
  'that says how to get the rest.';

export function createMcpServer(api: Api): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS });
  registerSearch(server, api);
  registerNodes(server, api);
  registerReadFile(server, api);
  registerAnalysis(server, api);
  registerPrReport(server, api);
  registerSymbols(server, api);
  registerSources(server, api);
  registerSyncs(server, api);
  return server;
}
