/**
 * Repeated re-syncs of one kept source, each on a quiet machine, with the workflow's timeline: the figure issue 12's
 * "no change" target asks for, and where its time goes. Unlike bench/incremental.ts (a new source per run, one sync
 * of each kind), the source stays registered between runs (its id in .stack/bench-resync.json), so the worker's kept
 * clone and the database's state are those of a source synced many times a day, and two checkouts' workers can be
 * compared in alternating blocks on the same source.
 *
 *   node --import tsx bench/resync.ts [--corpus python|go] [--syncs N] [--timeline] [--no-quiet]
 *
 * The first run copies the corpus into a git repository under the temp folder and syncs it once in full (not timed).
 * Every timed sync waits for a quiet machine (support/quiet.ts) unless --no-quiet. --timeline prints each activity's
 * scheduled, started and completed times from the workflow's history (the workflow id is the source id).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { api, env, root, stackPool } from './support/gateway.ts';
import { settle } from './support/quiet.ts';

const { values: args } = parseArgs({
  options: {
    corpus: { type: 'string', default: 'python' },
    syncs: { type: 'string', default: '5' },
    timeline: { type: 'boolean', default: false },
    'no-quiet': { type: 'boolean', default: false },
  },
});
const corpora: Record<string, () => { src: string; skip: (p: string) => boolean }> = {
  python: () => ({
    src: execFileSync('python3', ['-c', 'import sysconfig; print(sysconfig.get_paths()["stdlib"])'], {
      encoding: 'utf8',
    }).trim(),
    skip: (p) => /\/(site-packages|__pycache__|config-[^/]*)(\/|$)/.test(p) || p.endsWith('.pyc'),
  }),
  go: () => ({
    src: join(execFileSync('go', ['env', 'GOROOT'], { encoding: 'utf8' }).trim(), 'src'),
    skip: () => false,
  }),
};
const corpus = corpora[args.corpus];
if (!corpus) throw new Error(`--corpus: one of ${Object.keys(corpora).join(', ')}`);

interface Run {
  id: string;
  status: string;
  stats: { durations_ms?: Record<string, number>; incremental?: Record<string, unknown> };
}

const pool = stackPool();
const statePath = join(root, '.stack/bench-resync.json');
const state = (existsSync(statePath) ? JSON.parse(readFileSync(statePath, 'utf8')) : {}) as Record<string, string>;

async function sync(sourceId: string): Promise<{ ms: number; run: Run }> {
  const t = performance.now();
  const created = await api<Run>('POST', '/api/syncs', { source_id: sourceId, triggered_by: 'bench' });
  for (;;) {
    const run = await api<Run>('GET', `/api/syncs/${created.id}`).catch(() => null);
    if (run && ['completed', 'failed', 'cancelled'].includes(run.status)) {
      if (run.status !== 'completed') throw new Error(`sync ${run.id} ended ${run.status}`);
      return { ms: performance.now() - t, run };
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function sourceOf(name: string): Promise<string> {
  const known = state[name];
  if (known && (await api<{ id: string }>('GET', `/api/sources/${known}`).catch(() => null))) return known;
  const { src, skip } = corpus!();
  const dir = mkdtempSync(join(tmpdir(), `ckg-bench-resync-${name}-`));
  cpSync(src, dir, { recursive: true, verbatimSymlinks: true, filter: (p) => !skip(p) });
  const git = (...a: string[]) =>
    execFileSync('git', ['-C', dir, ...a], {
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'b',
        GIT_AUTHOR_EMAIL: 'b@x',
        GIT_COMMITTER_NAME: 'b',
        GIT_COMMITTER_EMAIL: 'b@x',
      },
    });
  git('init', '-q', '-b', 'main');
  git('add', '-A', '-f');
  git('commit', '-q', '-m', 'snapshot');
  const source = await api<{ id: string }>('POST', '/api/sources', {
    owner: 'bench',
    name: `resync-${name}`,
    url: dir,
    default_branch: 'main',
  });
  state[name] = source.id;
  writeFileSync(statePath, JSON.stringify(state));
  const first = await sync(source.id);
  console.log(`${name}: registered ${source.id} (${dir}), first sync ${(first.ms / 1000).toFixed(2)} s (not timed)`);
  return source.id;
}

async function timeline(client: Client, sourceId: string): Promise<string[]> {
  const events = (await client.workflow.getHandle(sourceId).fetchHistory()).events ?? [];
  const at = (e: (typeof events)[number]) =>
    Number(e.eventTime!.seconds) * 1000 + Math.round(e.eventTime!.nanos! / 1e6);
  const t0 = at(events[0]!);
  const steps = new Map<number, { name: string; scheduled: number; started?: number }>();
  const out: string[] = [];
  for (const e of events) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s) steps.set(Number(e.eventId), { name: s.activityType!.name!, scheduled: at(e) - t0 });
    const st = e.activityTaskStartedEventAttributes;
    if (st) steps.get(Number(st.scheduledEventId))!.started = at(e) - t0;
    const d = e.activityTaskCompletedEventAttributes;
    if (d) {
      const x = steps.get(Number(d.scheduledEventId))!;
      const done = at(e) - t0;
      out.push(
        `    ${x.name.padEnd(20)} scheduled +${x.scheduled}, started +${x.started ?? '?'}, done +${done} ms ` +
          `(${done - (x.started ?? x.scheduled)} ms)`,
      );
    }
  }
  return out;
}

const sourceId = await sourceOf(args.corpus);
const client = args.timeline
  ? new Client({ connection: await Connection.connect({ address: env('TEMPORAL_ADDRESS', '127.0.0.1:7233') }) })
  : null;
const times: number[] = [];
for (let i = 0; i < Number(args.syncs); i++) {
  const noisy = args['no-quiet'] ? null : await settle(pool);
  const { ms, run } = await sync(sourceId);
  times.push(ms);
  const inc = run.stats.incremental ?? {};
  console.log(
    `${(ms / 1000).toFixed(2)} s  worker ${JSON.stringify(run.stats.durations_ms ?? {})}  reused ${String(inc.reused)}, ` +
      `changed ${String(inc.changed)}${noisy ? `  (${noisy})` : ''}`,
  );
  if (client) for (const l of await timeline(client, sourceId)) console.log(l);
}
const sorted = [...times].sort((a, b) => a - b);
console.log(
  `${args.corpus}, ${times.length} re-syncs: min ${(sorted[0]! / 1000).toFixed(2)} s, median ` +
    `${(sorted[Math.floor(sorted.length / 2)]! / 1000).toFixed(2)} s, max ${(sorted.at(-1)! / 1000).toFixed(2)} s`,
);
await client?.connection.close();
await pool.end();
