/** ckg pr: a pull/merge request's report (GET /api/graph/pr, docs/webhooks.md), riskiest file first. */
import type { Command } from 'commander';
import { request } from '../../lib/api/client.ts';
import { getPrReport } from '../../lib/api/routes/graph.ts';
import { resolveSource } from '../names.ts';
import { note, print, printJson, table } from '../output.ts';
import { openSession, type GlobalOptions } from '../session.ts';
import { intOption } from './graph.ts';

export function registerPr(program: Command): void {
  program
    .command('pr')
    .description('what a pull/merge request changes, riskiest file first (its sync came from a code-host webhook)')
    .argument('<source>', 'the source: its id or owner/name')
    .argument('<number>', 'the pull/merge request number')
    .option('--limit <n>', 'most entries per list', '200')
    .action(async (source: string, number: string, _o: unknown, cmd: Command) => {
      const o = cmd.optsWithGlobals<GlobalOptions & { limit: string }>();
      const { api } = openSession(o);
      const r = await request(api, getPrReport, {
        query: {
          source_id: await resolveSource(api, source),
          number: intOption('number', number),
          limit: intOption('limit', o.limit),
        },
      });
      if (o.json) return printJson(r);
      const ch = { added: 'A', removed: 'D', changed: 'M' } as Record<string, string>;
      const list = (xs: Array<{ name: string }>, sign: string) => xs.map((x) => sign + x.name);
      print(
        table(
          r.files.map((f) => ({
            change: ch[f.change] ?? f.change,
            risk: f.risk,
            dependents: `${f.dependents.direct}/${f.dependents.total}`,
            path: f.file_path,
            symbols: [
              ...list(f.symbols.removed, '-'),
              ...list(f.symbols.changed, '~'),
              ...list(f.symbols.added, '+'),
            ].join(' '),
          })),
          [
            { key: 'change', header: 'CH' },
            { key: 'risk', header: 'RISK' },
            { key: 'dependents', header: 'DEPENDENTS' },
            { key: 'path', header: 'PATH', max: 70 },
            { key: 'symbols', header: 'SYMBOLS', max: 60 },
          ],
        ),
      );
      const c = r.counts;
      note(
        `PR ${r.pr.number} (${r.pr.head_commit?.slice(0, 12) ?? '?'}) against ${r.base.ref ?? '?'} ` +
          `(sync ${r.base.sync_id}): ${c.files_added} added, ${c.files_removed} removed, ${c.files_changed} changed ` +
          `files; ${c.impacted_files} more files impacted`,
      );
    });
}
