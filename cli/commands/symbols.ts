/**
 * callers and callees of a symbol (issue 28): `ckg callers owner/name:path#Symbol` (or `src_<source_id>:path#key`),
 * transitively with --depth; each line says where the symbol is, how the call was resolved and how sure, and the
 * note says whether the list is exact or a lower bound (and why).
 */
import type { Command } from 'commander';
import { request } from '../../lib/api/client.ts';
import { getSymbolImpact } from '../../lib/api/routes/symbols.ts';
import { CliError, EXIT } from '../exit.ts';
import { note, print, printJson, table } from '../output.ts';
import { openSession, type GlobalOptions } from '../session.ts';

function whole(name: string, value: string, min: number, max: number): number {
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new CliError(`--${name}: "${value}" is not a whole number from ${min} to ${max}`, EXIT.USAGE);
  }
  return Number(value);
}

function register(program: Command, direction: 'callers' | 'callees', description: string): void {
  program
    .command(direction)
    .description(description)
    .argument('<symbol>', 'owner/name:<path>#<Symbol> or src_<source_id>:<path>#<key>')
    .option('--depth <n>', 'follow calls this far (1-10)', '1')
    .option('--sync <sync-id>', 'read this sync (default: the newest completed one holding the file)')
    .option('--limit <n>', 'most symbols listed', '500')
    .action(async (symbol: string, _o: unknown, cmd: Command) => {
      const o = cmd.optsWithGlobals<GlobalOptions & { depth: string; sync?: string; limit: string }>();
      const a = await request(openSession(o).api, getSymbolImpact, {
        query: {
          symbol,
          direction,
          depth: whole('depth', o.depth, 1, 10),
          sync_id: o.sync,
          limit: whole('limit', o.limit, 1, 10_000),
        },
      });
      if (o.json) return printJson(a);
      print(
        table(
          a.items.map((i) => ({
            ...i,
            where: `${i.file_path}:${i.line}`,
            resolved: `${i.provenance} ${i.confidence}`,
            sites: i.lines.join(','),
          })),
          [
            { key: 'distance', header: 'DIST' },
            { key: 'kind', header: 'KIND' },
            { key: 'key', header: 'SYMBOL', max: 60 },
            { key: 'where', header: 'FILE:LINE', max: 80 },
            { key: 'resolved', header: 'RESOLVED' },
            { key: 'sites', header: 'SITES', max: 30 },
          ],
        ),
      );
      const c = a.completeness;
      const answer =
        c.status === 'exact' ? 'exact' : `lower bound: ${c.reasons.map((r) => `${r.count} ${r.reason}`).join(', ')}`;
      note(
        `${a.total} ${direction} of ${a.symbol.id} (${answer})` +
          `${a.truncated ? ` (showing ${a.items.length}; raise --limit)` : ''}, sync ${a.sync_id}`,
      );
    });
}

export function registerSymbols(program: Command): void {
  register(program, 'callers', 'the functions and methods that call a symbol (transitively with --depth)');
  register(program, 'callees', 'what a function or method calls (transitively with --depth)');
}
