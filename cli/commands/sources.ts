/** sources list / add / remove. */
import type { Command } from 'commander';
import { CliError, EXIT } from '../exit.ts';
import { note, print, printJson, table } from '../output.ts';
import { request } from '../../lib/api/client.ts';
import { deleteSource, listSources, upsertSource } from '../../lib/api/routes/sources.ts';
import { openSession, type GlobalOptions } from '../session.ts';

export function registerSources(program: Command): void {
  const sources = program.command('sources').description('repositories the service syncs');

  sources
    .command('list')
    .description('sources, newest first')
    .option('--limit <n>', 'page size (1-200)', '50')
    .option('--cursor <cursor>', 'next page (from the previous page)')
    .action(async (_o: unknown, cmd: Command) => {
      const o = cmd.optsWithGlobals<GlobalOptions & { limit: string; cursor?: string }>();
      const page = await request(openSession(o).api, listSources, { query: { limit: o.limit, cursor: o.cursor } });
      if (o.json) return printJson(page);
      print(
        table(
          page.items.map((s) => ({ ...s, repo: `${s.owner}/${s.name}` })),
          [
            { key: 'id', header: 'ID' },
            { key: 'repo', header: 'REPOSITORY', max: 40 },
            { key: 'default_branch', header: 'BRANCH' },
            { key: 'enabled', header: 'ENABLED' },
            { key: 'last_synced_at', header: 'LAST SYNCED' },
            { key: 'url', header: 'URL', max: 60 },
          ],
        ),
      );
      if (page.next_cursor) note(`more: --cursor ${page.next_cursor}`);
    });

  sources
    .command('add')
    .description('register a repository (or update the one with this owner/name)')
    .argument('<owner/name>', 'e.g. acme/widgets')
    .option('--clone-url <url>', 'clone URL (default for GitHub: https://github.com/<owner>/<name>.git)')
    .option('--branch <branch>', 'branch to sync (default main)')
    .action(async (repo: string, _o: unknown, cmd: Command) => {
      const o = cmd.optsWithGlobals<GlobalOptions & { branch?: string; cloneUrl?: string }>();
      const url = o.cloneUrl;
      const m = /^([^/\s]+)\/([^/\s]+)$/.exec(repo);
      if (!m) throw new CliError(`<owner/name>: "${repo}" is not of the form owner/name`, EXIT.USAGE);
      const body = {
        owner: m[1]!,
        name: m[2]!,
        ...(url ? { url } : {}),
        ...(o.branch ? { default_branch: o.branch } : {}),
      };
      const s = await request(openSession(o).api, upsertSource, { body });
      if (o.json) return printJson(s);
      print(s.id);
      note(`source ${s.owner}/${s.name}: ${s.id}`);
    });

  sources
    .command('remove')
    .description('delete a source with its syncs, files and graph')
    .argument('<source-id>')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const o = cmd.optsWithGlobals<GlobalOptions>();
      await request(openSession(o).api, deleteSource, { params: { source_id: id } });
      if (o.json) return printJson({ deleted: id });
      note(`removed source ${id}`);
    });
}
