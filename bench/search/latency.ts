/**
 * Latency of chunk and symbol search on one corpus already synced into the stack's database (default: go-std, as
 * bench/search/eval.ts syncs it). Runs the graph component's own search functions in-process on one connection, so
 * the figures are the database part of a request: the query vectors are fetched from EMBEDDING_URL beforehand (the
 * embedding call is excluded, as the target says). Prints wall time and the database backend's CPU time per query
 * (from /proc: on a shared machine the CPU time is what a quiet machine's wall time would be, near enough; the
 * data is in shared buffers after the first round).
 *
 *   DATABASE_URL=… EMBEDDING_URL=… node --import tsx bench/search/latency.ts [--corpus go-std] [--rounds 3]
 *     [--baseline DIR]   A/B in one run: DIR is another checkout (e.g. `git worktree add --detach /tmp/base main`);
 *                        its searchChunks and this checkout's run query by query, alternating which goes first
 *     [--modes lexical,hybrid] [--no-symbols]
 *     [--slowest N]      without --baseline: after each mode, its N slowest searches (default 3) and where their time
 *                        went: the backend's CPU and its wait for a CPU (/proc/PID/schedstat: time runnable but not
 *                        running), the pages it read from outside shared buffers (/proc/PID/io rchar / 8 kB, socket
 *                        reads included: ~1 page per search) and from the disk (read_bytes)
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createPool } from '../../lib/db.ts';
import { EmbeddingClient } from '../../lib/embeddings.ts';
import { withReadTx } from '../../graph-api/db/read.ts';
import { searchChunks } from '../../graph-api/search/chunks.ts';
import { parseChunkSearchParams, parseSymbolSearchParams, type ChunkMode } from '../../graph-api/search/params.ts';
import { chunkSearchInput } from '../../graph-api/search/search.ts';
import { searchSymbols } from '../../graph-api/search/symbols.ts';

const args = process.argv.slice(2);
const opt = (name: string, fallback: string) => (args.includes(name) ? args[args.indexOf(name) + 1]! : fallback);
const corpus = opt('--corpus', 'go-std');
const rounds = Number(opt('--rounds', '3'));
const baselineDir = args.includes('--baseline') ? opt('--baseline', '') : null;
const modes = opt('--modes', 'lexical,semantic,hybrid').split(',') as ChunkMode[];
type SearchChunks = typeof searchChunks;
type ParseParams = typeof parseChunkSearchParams;
const baseline = baselineDir
  ? {
      search: ((await import(`${baselineDir}/graph-api/search/chunks.ts`)) as { searchChunks: SearchChunks })
        .searchChunks,
      parse: ((await import(`${baselineDir}/graph-api/search/params.ts`)) as { parseChunkSearchParams: ParseParams })
        .parseChunkSearchParams,
    }
  : null;
const dbUrl = process.env.DATABASE_URL;
if (!dbUrl) throw new Error('DATABASE_URL is not set');
const embedUrl =
  process.env.EMBEDDING_URL ?? `http://127.0.0.1:${process.env.CKG_EMBEDDING_PORT ?? 8101}/v1/embeddings`;

const lines = readFileSync(new URL(`./queries/${corpus}.tsv`, import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '' && !l.startsWith('#'))
  .map((l) => l.split('\t') as [string, string, string, string]);

const pool = createPool(dbUrl, { max: 1 });
const client = await pool.connect();
const pid = (await client.query<{ p: number }>('SELECT pg_backend_pid() AS p')).rows[0]!.p;
const source = await client.query<{ id: string }>(`SELECT id FROM sources WHERE owner = 'search-eval' AND name = $1`, [
  corpus,
]);
client.release();
const sourceId = source.rows[0]?.id;
if (!sourceId) throw new Error(`no source search-eval/${corpus}: run bench/search/eval.ts first`);

/**
 * The backend's time on a CPU and waiting for one (ms, /proc/PID/schedstat) and the pages it read from the OS (not in
 * shared buffers) and from the disk (/proc/PID/io): where a slow search's time went when it was not the backend's CPU.
 */
function backendClock(): { run: number; wait: number; osPages: number; diskPages: number } {
  const [run, wait] = readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ').map(Number);
  const io = new Map(
    readFileSync(`/proc/${pid}/io`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(': ') as [string, string]),
  );
  return {
    run: run! / 1e6,
    wait: wait! / 1e6,
    osPages: Number(io.get('rchar')) / 8192,
    diskPages: Number(io.get('read_bytes')) / 8192,
  };
}
const slowestN = Number(opt('--slowest', '3'));
interface Slow {
  query: string;
  wall: number;
  run: number;
  wait: number;
  osPages: number;
  diskPages: number;
}

/** CPU seconds (user + system) of the database backend serving our one connection. */
function backendCpuMs(): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

const embedder = new EmbeddingClient({
  url: embedUrl,
  model: process.env.EMBEDDING_MODEL ?? 'embeddings',
  dimension: 896,
});
const vectors = await embedder.embedMany(lines.map(([, q]) => chunkSearchInput(q)));

async function measure(run: (i: number) => Promise<unknown>): Promise<{ wall: number[]; cpu: number[]; slow: Slow[] }> {
  const wall: number[] = [];
  const cpu: number[] = [];
  const slow: Slow[] = [];
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < lines.length; i++) {
      const c0 = backendCpuMs();
      const k0 = backendClock();
      const t0 = performance.now();
      await run(i);
      // The read transaction's COMMIT is not awaited by withReadTx: let it finish before reading the CPU.
      await pool.query('SELECT 1');
      if (r === 0) continue; // the first round warms the caches
      const w = performance.now() - t0;
      wall.push(w);
      cpu.push(backendCpuMs() - c0);
      const k1 = backendClock();
      slow.push({
        query: lines[i]![1],
        wall: w,
        run: k1.run - k0.run,
        wait: k1.wait - k0.wait,
        osPages: k1.osPages - k0.osPages,
        diskPages: k1.diskPages - k0.diskPages,
      });
      slow.sort((a, b) => b.wall - a.wall).splice(slowestN);
    }
  }
  return { wall, cpu, slow };
}

const showSlowest = (name: string, slow: Slow[]) => {
  for (const s of slow) {
    console.log(
      `  slow ${name}: ${s.wall.toFixed(1)} ms: backend on a CPU ${s.run.toFixed(1)} ms, waiting for one ` +
        `${s.wait.toFixed(1)} ms; ${Math.round(s.osPages)} pages read from the OS, ${Math.round(s.diskPages)} from ` +
        `the disk (${JSON.stringify(s.query)})`,
    );
  }
};

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
const show = (name: string, m: { wall: number[]; cpu: number[] }) =>
  console.log(
    `${name.padEnd(22)} wall p50 ${pct(m.wall, 50).toFixed(1)} p99 ${pct(m.wall, 99).toFixed(1)} ms | backend CPU p50 ` +
      `${pct(m.cpu, 50).toFixed(0)} p99 ${pct(m.cpu, 99).toFixed(0)} ms (10 ms ticks), mean ` +
      `${(m.cpu.reduce((a, b) => a + b, 0) / m.cpu.length).toFixed(1)} ms (n ${m.wall.length})`,
  );

console.log(
  `${corpus}: ${lines.length} queries, ${rounds - 1} measured round(s); load ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
const chunkRun = (search: SearchChunks, parse: ParseParams, mode: ChunkMode) => (i: number) => {
  const p = parse({ q: lines[i]![1], mode, source_id: sourceId, limit: '10' });
  return withReadTx(pool, 60_000, (tx) => search(tx, p, mode === 'lexical' ? null : vectors[i]!));
};
for (const mode of modes) {
  if (!baseline) {
    const m = await measure(chunkRun(searchChunks, parseChunkSearchParams, mode));
    show(`chunks ${mode}`, m);
    showSlowest(mode, m.slow);
    continue;
  }
  // A/B: both versions per query, the order alternating, so load and caches treat them alike.
  const a = { wall: [] as number[], cpu: [] as number[] };
  const b = { wall: [] as number[], cpu: [] as number[] };
  const runA = chunkRun(baseline.search, baseline.parse, mode);
  const runB = chunkRun(searchChunks, parseChunkSearchParams, mode);
  let turn = 0;
  await measure(async (i) => {
    const first = turn++ % 2 === 0;
    for (const [run, into] of first
      ? ([
          [runA, a],
          [runB, b],
        ] as const)
      : ([
          [runB, b],
          [runA, a],
        ] as const)) {
      const c0 = backendCpuMs();
      const t0 = performance.now();
      await run(i);
      await pool.query('SELECT 1');
      into.wall.push(performance.now() - t0);
      into.cpu.push(backendCpuMs() - c0);
    }
  });
  // measure() discards its first round; drop the same queries here.
  const warm = lines.length;
  for (const m of [a, b]) {
    m.wall.splice(0, warm);
    m.cpu.splice(0, warm);
  }
  show(`chunks ${mode} A (base)`, a);
  show(`chunks ${mode} B (this)`, b);
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  console.log(
    `  B/A: wall p50 ${(pct(b.wall, 50) / pct(a.wall, 50)).toFixed(2)}, p99 ${(pct(b.wall, 99) / pct(a.wall, 99)).toFixed(2)}, ` +
      `CPU mean ${(mean(b.cpu) / mean(a.cpu)).toFixed(2)}`,
  );
}
if (args.includes('--no-symbols')) {
  await pool.end();
  process.exit(0);
}
// Symbol queries: the target's name (exact), its first letters (prefix), the name missing its last letter (fuzzy).
const symbolQuery = (name: string, match: string) =>
  match === 'exact' ? name : match === 'prefix' ? name.slice(0, Math.max(3, name.length - 4)) : name.slice(0, -1);
for (const match of ['exact', 'prefix', 'fuzzy']) {
  show(
    `symbols ${match}`,
    await measure((i) => {
      const q = symbolQuery(lines[i]![3], match);
      const p = parseSymbolSearchParams({ q, match, source_id: sourceId, limit: '10' });
      return withReadTx(pool, 60_000, (tx) => searchSymbols(tx, p));
    }),
  );
}
console.log(
  `load at the end ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
await pool.end();
