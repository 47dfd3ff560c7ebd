/** search, show (a node), cat (print a file or a line range), impact, diff. */
import type { Command } from 'commander';
import { renderLines } from '../../mcp/lines.ts';
import { CliError, EXIT } from '../exit.ts';
import { resolveNode, resolveSourceOption } from '../names.ts';
import { cell, note, print, printJson, table } from '../output.ts';
import { openSession, type GlobalOptions } from '../session.ts';
import { request } from '../../lib/api/client.ts';
import { getDiff, getImpact } from '../../lib/api/routes/graph.ts';
import { searchChunks, searchFiles, searchSymbols } from '../../lib/api/routes/search.ts';
import { getFile, getNode } from '../../lib/api/routes/nodes.ts';

type Json = Record<string, unknown>;
const pathOf = (id: string) => id.slice(41);

export function intOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new CliError(`--${name}: "${value}" is not a whole number`, EXIT.USAGE);
  return Number(value);
}

/** `--lines 10:20`, `10:` or `10` → start and end lines. */
export function parseLines(spec: string | undefined): { start: number; end?: number } {
  if (spec === undefined) return { start: 1 };
  const m = /^(\d+)(?::(\d*))?$/.exec(spec);
  if (!m || Number(m[1]) < 1) throw new CliError(`--lines: "${spec}" is not START[:END] (1-based)`, EXIT.USAGE);
  const start = Number(m[1]);
  const end = m[2] === undefined ? start : m[2] === '' ? undefined : Number(m[2]);
  if (end !== undefined && end < start) throw new CliError(`--lines: END ${end} is before START ${start}`, EXIT.USAGE);
  return end === undefined ? { start } : { start, end };
}

/** Search hits as a table: files by distance; chunks as path:lines with the snippet's first line; symbols. */
function searchTable(kind: string, results: Json[]): string {
  if (kind === 'files') {
    return table(
      results.map((r) => ({
        ...r,
        distance: typeof r.distance === 'number' ? r.distance.toFixed(4) : r.distance,
        match: r.match ?? 'meaning',
      })),
      [
        { key: 'repository', header: 'REPOSITORY', max: 40 },
        { key: 'match', header: 'MATCH' },
        { key: 'distance', header: 'DISTANCE' },
        { key: 'type', header: 'TYPE' },
        { key: 'file_path', header: 'PATH', max: 90 },
      ],
    );
  }
  if (kind === 'chunks') {
    return table(
      results.map((c) => {
        const text = String((c.snippet as { text?: string } | undefined)?.text ?? '');
        return {
          repository: c.repository,
          where: `${String(c.file_path)}:${String(c.start_line)}-${String(c.end_line)}`,
          chunk_type: c.chunk_type,
          score: typeof c.score === 'number' ? c.score.toFixed(4) : c.score,
          text: text.split('\n').find((l) => l.trim() !== '') ?? '',
        };
      }),
      [
        { key: 'repository', header: 'REPOSITORY', max: 40 },
        { key: 'where', header: 'FILE:LINES', max: 70 },
        { key: 'chunk_type', header: 'TYPE' },
        { key: 'score', header: 'SCORE' },
        { key: 'text', header: 'TEXT', max: 60 },
      ],
    );
  }
  return table(
    results.map((r) => ({ ...r, where: `${String(r.file_path)}:${String(r.line)}` })),
    [
      { key: 'repository', header: 'REPOSITORY', max: 40 },
      { key: 'name', header: 'NAME', max: 40 },
      { key: 'kind', header: 'KIND' },
      { key: 'match', header: 'MATCH' },
      { key: 'where', header: 'FILE:LINE', max: 80 },
    ],
  );
}

/** `ckg search`: files, chunks or symbols of the newest syncs. */
function registerSearch(program: Command): void {
  program
    .command('search')
    .description(
      'search the newest sync of every source (or of --source): files (by name, then meaning), chunks or symbols',
    )
    .argument('<query...>')
    .option('--kind <kind>', 'files, chunks or symbols', 'files')
    .option('--type <type>', 'files and chunks: source, test, config, script, doc, data, asset or service')
    .option('--source <source>', 'only this source (id or owner/name)')
    .option('--sync <sync-ids>', 'only these syncs (comma-separated ids)')
    .option('--limit <n>', 'results (1-100)', '10')
    .action(async (words: string[], _o: unknown, cmd: Command) => {
      const o = cmd.optsWithGlobals<
        GlobalOptions & { kind: string; type?: string; source?: string; sync?: string; limit: string }
      >();
      if (!['files', 'chunks', 'symbols'].includes(o.kind)) {
        throw new CliError(`--kind: "${o.kind}" is not files, chunks or symbols`, EXIT.USAGE);
      }
      const q = words.join(' ');
      const { api } = openSession(o);
      const scope = {
        q,
        source_id: await resolveSourceOption(api, o.source),
        sync_ids: o.sync,
        limit: o.limit,
      };
      const answer =
        o.kind === 'files'
          ? await request(api, searchFiles, { query: { ...scope, type: o.type } })
          : o.kind === 'chunks'
            ? await request(api, searchChunks, { query: { ...scope, file_type: o.type } })
            : await request(api, searchSymbols, { query: scope });
      if (o.json) return printJson(answer);
      const results: Json[] = 'results' in answer ? answer.results : answer.items;
      print(searchTable(o.kind, results));
    });
}

/** `ckg show`: a node with its neighbours. */
function registerShow(program: Command): void {
  program
    .command('show')
    .description('a node: its file record and neighbours')
    .argument('<node-id>', 'src_<source_id>:<path> or owner/name:<path>')
    .option('--sync <sync-id>', 'read this sync (default: the newest completed one holding the file)')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const o = cmd.optsWithGlobals<GlobalOptions & { sync?: string }>();
      const { api } = openSession(o);
      const d = await request(api, getNode, {
        params: { node_id: await resolveNode(api, id) },
        query: { sync_id: o.sync },
      });
      if (o.json) return printJson(d);
      const n = d.node;
      for (const k of [
        'id',
        'type',
        'language',
        'line_count',
        'size_bytes',
        'sync_id',
        'content_hash',
        'description',
      ]) {
        print(`${k.padEnd(13)} ${cell((n as Record<string, unknown>)[k])}`);
      }
      print('');
      print(
        table(
          d.neighbors.map((x) => ({ ...x, other: x.file_path ?? x.name })),
          [
            { key: 'direction', header: 'DIR' },
            { key: 'rel_type', header: 'EDGE' },
            { key: 'other', header: 'NODE', max: 90 },
            { key: 'kind', header: 'KIND' },
            { key: 'line', header: 'LINE' },
          ],
        ),
      );
    });
}

/** `ckg cat`: a file as stored, or a range of its lines. */
function registerCat(program: Command): void {
  program
    .command('cat')
    .description('print a file as stored by the sync, or a range of its lines')
    .argument('<node-id>', 'src_<source_id>:<path> or owner/name:<path>')
    .option('--sync <sync-id>', 'read this sync')
    .option('--lines <start[:end]>', 'only these lines (1-based, inclusive), e.g. 10:20 or 10:')
    .option('-n, --number', 'prefix line numbers')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const o = cmd.optsWithGlobals<GlobalOptions & { sync?: string; lines?: string; number?: boolean }>();
      const range = parseLines(o.lines);
      const { api } = openSession(o);
      const f = await request(api, getFile, {
        params: { node_id: await resolveNode(api, id) },
        query: { sync_id: o.sync },
      });
      if (o.json) return printJson(f);
      if (f.truncated) note('note: the service cut this file at 5 MiB');
      if (o.lines === undefined && !o.number) {
        process.stdout.write(f.content);
        return;
      }
      const text = renderLines(id, f, { ...range, numbers: o.number === true }, Number.MAX_SAFE_INTEGER);
      // renderLines' first line is a header and trailing lines are notes: the notes go to stderr.
      const lines = text.split('\n').slice(1);
      for (const l of lines) (l.startsWith('# note: ') ? note : print)(l.startsWith('# note: ') ? l.slice(2) : l);
    });
}

/** `ckg impact`: the files a file reaches over depends_on edges. */
function registerImpact(program: Command): void {
  program
    .command('impact')
    .description('the files that depend on a file, transitively (or what it depends on)')
    .argument('<node-id>', 'src_<source_id>:<path> or owner/name:<path>')
    .option('--direction <direction>', 'dependents or dependencies', 'dependents')
    .option('--depth <n>', 'largest distance (1-10)', '3')
    .option('--sync <sync-id>', 'walk this sync')
    .option('--limit <n>', 'most files listed', '500')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const o = cmd.optsWithGlobals<
        GlobalOptions & { direction: string; depth: string; sync?: string; limit: string }
      >();
      const { api } = openSession(o);
      const a = await request(api, getImpact, {
        query: {
          node_id: await resolveNode(api, id),
          direction: o.direction,
          depth: intOption('depth', o.depth),
          sync_id: o.sync,
          limit: intOption('limit', o.limit),
        },
      });
      if (o.json) return printJson(a);
      print(
        table(
          a.items.map((i) => ({ ...i, via: i.distance === 1 ? '' : pathOf(i.via) })),
          [
            { key: 'distance', header: 'DIST' },
            { key: 'type', header: 'TYPE' },
            { key: 'file_path', header: 'FILE', max: 90 },
            { key: 'via', header: 'VIA', max: 60 },
          ],
        ),
      );
      note(`${a.total} files${a.truncated ? ` (showing ${a.items.length}; raise --limit)` : ''}, sync ${a.sync_id}`);
    });
}

/** `ckg diff`: what changed between two syncs of a source. */
function registerDiff(program: Command): void {
  program
    .command('diff')
    .description('what changed between two syncs of a source (default: its last two completed syncs)')
    .option('--source <source>', 'the source, id or owner/name (needed without --from / --to)')
    .option('--from <sync-id>', 'the older sync')
    .option('--to <sync-id>', 'the newer sync')
    .option('--limit <n>', 'most entries per list', '1000')
    .action(async (_o: unknown, cmd: Command) => {
      const o = cmd.optsWithGlobals<GlobalOptions & { source?: string; from?: string; to?: string; limit: string }>();
      if (!o.source && !o.from && !o.to) throw new CliError('diff needs --source, --from or --to', EXIT.USAGE);
      const { api } = openSession(o);
      const d = await request(api, getDiff, {
        query: {
          source_id: await resolveSourceOption(api, o.source),
          from: o.from,
          to: o.to,
          limit: intOption('limit', o.limit),
        },
      });
      if (o.json) return printJson(d);
      const rows = [
        ...d.files.added.map((f) => ({ change: 'A', what: 'file', path: f.file_path })),
        ...d.files.removed.map((f) => ({ change: 'D', what: 'file', path: f.file_path })),
        ...d.files.changed.map((f) => ({ change: 'M', what: 'file', path: f.file_path })),
        ...d.edges.added.map((e) => ({
          change: '+',
          what: 'edge',
          path: `${pathOf(e.source)} -> ${pathOf(e.target)}`,
        })),
        ...d.edges.removed.map((e) => ({
          change: '-',
          what: 'edge',
          path: `${pathOf(e.source)} -> ${pathOf(e.target)}`,
        })),
      ];
      print(
        table(rows, [
          { key: 'change', header: 'CH' },
          { key: 'what', header: 'KIND' },
          { key: 'path', header: 'PATH' },
        ]),
      );
      const c = d.counts;
      note(
        `${d.from.id} -> ${d.to.id}: ${c.added} added, ${c.removed} removed, ${c.changed} changed, ${c.unchanged} unchanged files; ` +
          `${c.edges_added} edges added, ${c.edges_removed} removed${d.truncated ? ' (lists cut: raise --limit)' : ''}`,
      );
    });
}

export function registerGraph(program: Command): void {
  registerSearch(program);
  registerShow(program);
  registerCat(program);
  registerImpact(program);
  registerDiff(program);
}
