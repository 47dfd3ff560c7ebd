/** `ckg mcp`: the MCP server over stdio, for agents that start their tools as processes. Logs go to stderr. */
import type { Command } from 'commander';
import { openSession, type GlobalOptions } from '../session.ts';

export function registerMcp(program: Command): void {
  program
    .command('mcp')
    .description('serve the MCP tools over stdio (configure your agent to run `ckg mcp`)')
    .action(async (_o: unknown, cmd: Command) => {
      const session = openSession(cmd.optsWithGlobals<GlobalOptions>());
      // Fail now, naming the cause, rather than on the agent's first tool call.
      await session.token();
      // Loaded here, not at start-up: the SDK and zod are only needed by this command.
      const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
      const { createMcpServer } = await import('../../mcp/server.ts');
      const server = createMcpServer(session.api);
      const transport = new StdioServerTransport();
      await server.connect(transport);
      await new Promise<void>((resolve) => {
        transport.onclose = () => resolve();
        process.stdin.on('end', () => resolve());
      });
      await server.close();
    });
}
