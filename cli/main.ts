/**
 * The `ckg` command line: a terminal's way into the service (REST and SSE through the gateway) and the stdio MCP
 * server. Exit codes: exit.ts (docs/cli.md).
 */
import { Command, CommanderError } from 'commander';
import { registerGraph } from './commands/graph.ts';
import { registerPr } from './commands/pr.ts';
import { registerMcp } from './commands/mcp.ts';
import { registerProfiles } from './commands/profiles.ts';
import { registerSources } from './commands/sources.ts';
import { registerSymbols } from './commands/symbols.ts';
import { registerSyncs } from './commands/syncs.ts';
import { EXIT, exitCodeOf, messageOf } from './exit.ts';

export function buildProgram(): Command {
  const program = new Command('ckg')
    .description(
      'code-knowledge graph service: sources, syncs, search, impact, callers, callees, diff, and an MCP server',
    )
    .version('1.0.0')
    .option('--profile <name>', 'profile to use (default: CKG_PROFILE, else the current profile)')
    .option('--url <url>', 'gateway address (overrides the profile; CKG_URL)')
    .option('--token <token>', 'bearer token (overrides the profile; CKG_TOKEN)')
    .option('--timeout <seconds>', 'limit on each request', '120')
    .option('--json', 'print JSON for scripts instead of tables')
    .showHelpAfterError()
    .exitOverride();
  registerProfiles(program);
  registerSources(program);
  registerSyncs(program);
  registerGraph(program);
  registerPr(program);
  registerSymbols(program);
  registerMcp(program);
  for (const c of program.commands) {
    c.exitOverride();
    for (const sub of c.commands) sub.exitOverride();
  }
  return program;
}

async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return EXIT.OK;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version end the program by throwing too.
      if (err.exitCode === 0) return EXIT.OK;
      return EXIT.USAGE;
    }
    process.stderr.write(`ckg: ${messageOf(err)}\n`);
    return exitCodeOf(err);
  }
}

process.exitCode = await main(process.argv);
