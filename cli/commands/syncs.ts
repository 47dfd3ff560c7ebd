/** sync start [--follow] / list / show / cancel / retry [--follow]. */
import type { Command } from 'commander';
import { CliError, EXIT } from '../exit.ts';
import { request } from '../../lib/api/client.ts';
import { cancelSync, createSync, getSync, listSyncs, retrySync } from '../../lib/api/routes/syncs.ts';
import type { Sync } from '../../lib/api/schemas.ts';
import { followSync } from '../follow.ts';
import { note, print, printJson, table } from '../output.ts';
import { resolveSource, resolveSourceOption } from '../names.ts';
import { ProgressView } from '../progress.ts';
import { openSession, type GlobalOptions, type Session } from '../session.ts';

const COLUMNS = [
  { key: 'id', header: 'ID' },
  { key: 'source_id', header: 'SOURCE' },
  { key: 'status', header: 'STATUS' },
  { key: 'phase', header: 'PHASE' },
  { key: 'progress', header: 'PROGRESS' },
  { key: 'created_at', header: 'CREATED' },
  { key: 'error', header: 'ERROR', max: 50 },
];

const row = (s: Sync) => ({
  ...s,
  phase: s.progress_meta?.phase,
  progress: `${s.progress_done}/${s.progress_total}`,
});

/** Prints a run; with --follow first follows it to its end (exit 7 when it did not complete). */
async function report(session: Session, s: Sync, o: GlobalOptions & { follow?: boolean }): Promise<void> {
  let run = s;
  if (o.follow) {
    const view = new ProgressView();
    try {
      run = await followSync(session, s.id, view);
    } finally {
      view.end();
    }
  }
  if (o.json) printJson(run);
  else print(table([row(run)], COLUMNS));
  if (o.follow && run.status !== 'completed') {
    throw new CliError(`sync ${run.id} ended ${run.status}${run.error ? `: ${run.error}` : ''}`, EXIT.SYNC_FAILED);
  }
}

export function registerSyncs(program: Command): void {
  const sync = program.command('sync').description('sync runs: snapshots of a source');

  sync
    .command('start')
    .description('start a sync of a source')
    .argument('<source>', 'the source: its id or owner/name')
    .option('-f, --follow', 'follow it live to its end (exit 7 unless it completes)')
    .action(async (source: string, _o: unknown, cmd: Command) => {
      const o = cmd.optsWithGlobals<GlobalOptions & { follow?: boolean }>();
      const session = openSession(o);
      const s = await request(session.api, createSync, {
        body: { source_id: await resolveSource(session.api, source), triggered_by: 'cli' },
      });
      if (!o.json) note(`sync ${s.id} started`);
      await report(session, s, o);
    });

  sync
    .command('list')
    .description('sync runs, newest first')
    .option('--source <source>', 'only this source (id or owner/name)')
    .option('--status <status>', 'only this status')
    .option('--limit <n>', 'page size (1-200)', '20')
    .option('--cursor <cursor>', 'next page')
    .action(async (_o: unknown, cmd: Command) => {
      const o = cmd.optsWithGlobals<
        GlobalOptions & { source?: string; status?: string; limit: string; cursor?: string }
      >();
      const { api } = openSession(o);
      const page = await request(api, listSyncs, {
        query: {
          source_id: await resolveSourceOption(api, o.source),
          status: o.status,
          limit: o.limit,
          cursor: o.cursor,
        },
      });
      if (o.json) return printJson(page);
      print(table(page.items.map(row), COLUMNS));
      if (page.next_cursor) note(`more: --cursor ${page.next_cursor}`);
    });

  sync
    .command('show')
    .description('one sync run')
    .argument('<sync-id>')
    .option('-f, --follow', 'follow it live to its end')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const o = cmd.optsWithGlobals<GlobalOptions & { follow?: boolean }>();
      const session = openSession(o);
      await report(session, await request(session.api, getSync, { params: { sync_id: id } }), o);
    });

  for (const [verb, what] of [
    ['cancel', 'cancel an active sync'],
    ['retry', 'start the sync again (a failed or cancelled one)'],
  ] as const) {
    const c = sync
      .command(verb)
      .description(what)
      .argument('<sync-id>')
      .action(async (id: string, _o: unknown, cmd: Command) => {
        const o = cmd.optsWithGlobals<GlobalOptions & { follow?: boolean }>();
        const session = openSession(o);
        const s = await request(session.api, verb === 'cancel' ? cancelSync : retrySync, { params: { sync_id: id } });
        if (!o.json) note(`${verb}: sync ${s.id} is ${s.status}`);
        await report(session, s, o);
      });
    if (verb === 'retry') c.option('-f, --follow', 'follow the new run live to its end');
  }
}
