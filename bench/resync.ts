/**
 * Repeated re-syncs of one kept source, each on a quiet machine, with the workflow's timeline: the figure issue 12's
 * "no change" target asks for, and where its time goes. Unlike bench/incremental.ts (a new source per run, one sync
 * of each kind), the source stays registered between runs (its id in .stack/bench-resync.json), so the worker's kept
 * clone and the database's state are those of a source synced many times a day, and two checkouts' workers can be
 * compared in alternating blocks on the same source.
 *
 *   node --import tsx bench/resync.ts [--corpus python|go] [--syncs N] [--timeline] [--no-quiet] [--change]
 *                                     [--no-precise]
 *
 * The first run copies the corpus into a git repository under the temp folder and syncs it once in full (not timed).
 * Every timed sync waits for a quiet machine (support/quiet.ts) unless --no-quiet. --timeline prints each activity's
 * scheduled, started and completed times from the workflow's history (the workflow id is the source id).
 * --change commits a change to one file (the one bench/incremental.ts changes) before each timed sync: issue 12's
 * "one changed file" figure. --no-precise registers the source with the precise tier off (bench/soak.ts and
 * bench/history.ts turn it off anyway: registering so spares the first full sync the tier's minutes).
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { CHANGED_FILE, CORPORA, corpusRepo, git } from './support/corpus.ts';
import { api, env, root, stackPool, syncThroughGateway } from './support/gateway.ts';
import { settle } from './support/quiet.ts';

const { values: args } = parseArgs({
  options: {
    corpus: { type: 'string', default: 'python' },
    syncs: { type: 'string', default: '5' },
    timeline: { type: 'boolean', default: false },
    'no-quiet': { type: 'boolean', default: false },
    change: { type: 'boolean', default: false },
    'no-precise': { type: 'boolean', default: false },
  },
});
if (args.corpus !== 'python' && args.corpus !== 'go') throw new Error('--corpus: python or go');
const name: 'python' | 'go' = args.corpus;

const pool = stackPool();
const statePath = join(root, '.stack/bench-resync.json');
const state = (existsSync(statePath) ? JSON.parse(readFileSync(statePath, 'utf8')) : {}) as Record<string, string>;

async function sourceOf(name: 'python' | 'go'): Promise<string> {
  const known = state[name];
  if (known && (await api<{ id: string }>('GET', `/api/sources/${known}`).catch(() => null))) return known;
  const dir = corpusRepo(`ckg-bench-resync-${name}`, CORPORA[name]());
  const source = await api<{ id: string }>('POST', '/api/sources', {
    owner: 'bench',
    name: `resync-${name}`,
    url: dir,
    default_branch: 'main',
    ...(args['no-precise'] ? { config: { precise: false } } : {}),
  });
  state[name] = source.id;
  writeFileSync(statePath, JSON.stringify(state));
  const first = await syncThroughGateway(source.id);
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
    if (s) {
      // A batch step names its batch (its input's `batch`).
      const data = s.input?.payloads?.[0]?.data;
      const batch = data ? (JSON.parse(Buffer.from(data).toString('utf8')) as { batch?: number }).batch : undefined;
      const name = s.activityType!.name! + (batch === undefined ? '' : ` ${batch}`);
      steps.set(Number(e.eventId), { name, scheduled: at(e) - t0 });
    }
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

const sourceId = await sourceOf(name);
const client = args.timeline
  ? new Client({ connection: await Connection.connect({ address: env('TEMPORAL_ADDRESS', '127.0.0.1:7233') }) })
  : null;
const times: number[] = [];
const repo = args.change ? (await api<{ url: string }>('GET', `/api/sources/${sourceId}`)).url : null;
for (let i = 0; i < Number(args.syncs); i++) {
  if (repo) {
    appendFileSync(join(repo, CHANGED_FILE[name]), `\n${name === 'go' ? '//' : '#'} changed by bench/resync.ts\n`);
    git(repo, 'commit', '-q', '-am', 'one file changed');
  }
  const noisy = args['no-quiet'] ? null : await settle(pool);
  const { ms, run } = await syncThroughGateway(sourceId);
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
