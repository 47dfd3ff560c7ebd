/**
 * Gateway benchmark: `node --import tsx bench/gateway.ts` (DATABASE_URL must point at the stack's PostgreSQL).
 * The gateway runs as its own process (gateway/main.ts), with authentication on (real RS256 tokens, JWKS over HTTP).
 *
 * Prints:
 * 1. per-request overhead: GET of a small JSON document (node-detail sized) directly from an upstream vs through the
 *    gateway, sequential, keep-alive; p50/p99 and the p50 difference (target <= 1 ms);
 * 2. requests/s of that GET through the gateway at concurrency 50 (and directly, for scale), plus the upstream client
 *    choice: node http.Agent vs undici Pool with the same limits, calling the upstream directly;
 * 3. SSE fan-out latency to 1000 clients: NOTIFY-ing insert to frame received, p50/p99/max (target p99 <= 50 ms);
 * 4. catch-up time for 100k event rows (Last-Event-ID 0 to the last frame).
 * Env: BENCH_REQUESTS (5000), BENCH_SECONDS (5), BENCH_SSE_CLIENTS (1000), BENCH_CATCHUP_ROWS (100000),
 * BENCH_GATEWAY_ENV (JSON of extra gateway variables, e.g. '{"UPSTREAM_MAX_IDLE_CONNECTIONS":"100"}').
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool as UndiciPool } from 'undici';
import { writeEvent } from '../lib/events.ts';
import { createTestDatabase } from '../test/support/db.ts';
import { startTestIdp } from '../test/support/idp-keys.ts';
import { connectSse } from '../test/support/sse-client.ts';

const N = Number(process.env.BENCH_REQUESTS ?? 5000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const SSE_CLIENTS = Number(process.env.BENCH_SSE_CLIENTS ?? 1000);
const CATCHUP_ROWS = Number(process.env.BENCH_CATCHUP_ROWS ?? 100_000);

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const fmt = (ms: number) => `${ms.toFixed(3)} ms`;
const summary = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: pct(s, 50), p99: pct(s, 99), max: s.at(-1)! };
};

const NODE_DETAIL = JSON.stringify({
  node: {
    id: 'src_00000000-0000-0000-0000-000000000000:lib/db.ts',
    name: 'db.ts',
    type: 'source',
    language: 'typescript',
    size_bytes: 3120,
    line_count: 88,
    description: 'The database pool and transaction helper.',
    imports_count: 2,
    content_hash: 'a'.repeat(64),
  },
  neighbors: Array.from({ length: 12 }, (_, i) => ({
    node_id: `src_00000000-0000-0000-0000-000000000000:lib/n${i}.ts`,
    name: `n${i}.ts`,
    rel_type: 'depends_on',
    weight: 1,
    direction: i % 2 ? 'in' : 'out',
  })),
});

async function startUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.url === '/openapi.json') return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(NODE_DETAIL) });
    res.end(NODE_DETAIL);
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

async function freePort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

interface GatewayProcess {
  url: string;
  child: ChildProcess;
  /** The gateway's log lines (JSON), as they arrive. */
  lines: Record<string, unknown>[];
  stop(): Promise<void>;
}

async function startGatewayProcess(env: Record<string, string>, logLevel = 'warning'): Promise<GatewayProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'gateway/main.ts'], {
    env: {
      ...process.env,
      ...env,
      APP_PORT: String(port),
      APP_HOST: '127.0.0.1',
      METRICS_PORT: '0',
      LOG_LEVEL: logLevel,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: Record<string, unknown>[] = [];
  let buf = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    buf += c;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      lines.push(JSON.parse(buf.slice(0, i)) as Record<string, unknown>);
      buf = buf.slice(i + 1);
    }
  });
  const stop = async () => {
    child.kill('SIGTERM');
    if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
  };
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    try {
      const r = await fetch(url + '/health');
      if (r.ok) return { url, child, lines, stop };
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGTERM');
  throw new Error('gateway did not start');
}

function get(agent: http.Agent, url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    http
      .get(url, { agent, headers }, (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 200 ? resolve(performance.now() - t0) : reject(new Error(`HTTP ${res.statusCode}`)),
        );
      })
      .on('error', reject);
  });
}

async function sequential(url: string, headers: Record<string, string>): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  for (let i = 0; i < 200; i++) await get(agent, url, headers); // warm-up
  const out: number[] = [];
  for (let i = 0; i < N; i++) out.push(await get(agent, url, headers));
  agent.destroy();
  return out;
}

async function throughput(call: () => Promise<unknown>, concurrency = 50): Promise<number> {
  const until = performance.now() + SECONDS * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        await call();
        done++;
      }
    }),
  );
  return done / SECONDS;
}

async function main(): Promise<void> {
  const db = await createTestDatabase();
  const idp = await startTestIdp('bench');
  const upstream = await startUpstream();
  const token = await idp.sign({}, { expiresIn: 3600 });
  const auth = { authorization: `Bearer ${token}` };
  const gwEnv = {
    DATABASE_URL: db.url,
    KEYCLOAK_URL: idp.url,
    KEYCLOAK_REALM: 'bench',
    GRAPH_SERVICE_URL: upstream.url,
    INGESTION_SERVICE_URL: upstream.url,
    ...(JSON.parse(process.env.BENCH_GATEWAY_ENV ?? '{}') as Record<string, string>),
  };
  const gw = await startGatewayProcess(gwEnv);
  // The event-stream parts run on a second gateway process logging at debug (its sse_fanout lines time the
  // gateway's own share: notification received to the last client written).
  let sseGw: GatewayProcess | undefined;
  const path = '/api/graph/nodes/src_00000000-0000-0000-0000-000000000000:lib/db.ts';
  console.log(`gateway benchmark (${process.env.BENCH_LABEL ?? 'local'}), node ${process.version}`);
  try {
    // 1. Overhead.
    const direct = summary(await sequential(upstream.url + path, auth));
    const through = summary(await sequential(gw.url + path, auth));
    console.log(`\n1. per-request latency, ${N} sequential GETs (keep-alive, auth on)`);
    console.log(`   direct to upstream : p50 ${fmt(direct.p50)}  p99 ${fmt(direct.p99)}`);
    console.log(`   through gateway    : p50 ${fmt(through.p50)}  p99 ${fmt(through.p99)}`);
    console.log(`   gateway overhead   : p50 ${fmt(through.p50 - direct.p50)}  (target <= 1 ms)`);

    // 2. Throughput.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 50 });
    const rpsGw = await throughput(() => get(agent, gw.url + path, auth));
    const rpsDirect = await throughput(() => get(agent, upstream.url + path, auth));
    agent.destroy();
    const limits = { keepAlive: true, maxSockets: 100, maxTotalSockets: 100, maxFreeSockets: 20, timeout: 2000 };
    const nodeAgent = new http.Agent(limits);
    const rpsNodeAgent = await throughput(() => get(nodeAgent, upstream.url + path, auth));
    nodeAgent.destroy();
    const pool = new UndiciPool(upstream.url, { connections: 100, keepAliveTimeout: 2000 });
    const rpsUndici = await throughput(async () => {
      const r = await pool.request({ method: 'GET', path, headers: auth });
      await r.body.dump();
    });
    await pool.close();
    console.log(`\n2. requests/s of the GET at concurrency 50, ${SECONDS} s each`);
    console.log(`   through gateway    : ${rpsGw.toFixed(0)} req/s`);
    console.log(`   direct to upstream : ${rpsDirect.toFixed(0)} req/s`);
    console.log(
      `   upstream client, direct: node http.Agent ${rpsNodeAgent.toFixed(0)} req/s, undici Pool ${rpsUndici.toFixed(0)} req/s`,
    );

    // 3. SSE fan-out.
    await gw.stop();
    sseGw = await startGatewayProcess(gwEnv, 'debug');
    // Clients live in helper processes (one per core), so reading 1000 sockets is not serialised on one event loop.
    const procs = Math.max(2, Math.min(4, availableParallelism()));
    const helpers = Array.from({ length: procs }, (_, k) =>
      fork(
        'bench/sse-clients.ts',
        [
          `${sseGw!.url}/api/events`,
          token,
          String(Math.floor(SSE_CLIENTS / procs) + (k < SSE_CLIENTS % procs ? 1 : 0)),
        ],
        { execArgv: ['--import', 'tsx'] },
      ),
    );
    const ready = await Promise.all(
      helpers.map(
        (h) => new Promise<{ refused: number }>((r) => h.once('message', (m) => r(m as { refused: number }))),
      ),
    );
    if (ready.some((r) => r.refused > 0)) throw new Error('an SSE client was refused');
    for (let i = 0; i < 5; i++) {
      // warm-up frames (no `t`: not measured)
      await writeEvent(db.pool, { type: 'sync_progress', payload: { warmup: i } });
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 500));
    const EVENTS = 50;
    for (let i = 0; i < EVENTS; i++) {
      const t = performance.timeOrigin + performance.now();
      await writeEvent(db.pool, { type: 'sync_progress', payload: { i, t, progress_done: i, progress_total: EVENTS } });
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 1000));
    const reports = await Promise.all(
      helpers.map(
        (h) =>
          new Promise<number[]>((r) => {
            h.once('message', (m) => r((m as { latencies: number[] }).latencies));
            h.send({ done: true });
          }),
      ),
    );
    const latencies = reports.flat();
    const fan = summary(latencies);
    console.log(
      `\n3. SSE fan-out to ${SSE_CLIENTS} clients (${procs} client processes), ${EVENTS} events, insert+NOTIFY to frame received`,
    );
    console.log(`   frames received    : ${latencies.length} of ${SSE_CLIENTS * EVENTS}`);
    console.log(
      `   latency            : p50 ${fmt(fan.p50)}  p99 ${fmt(fan.p99)}  max ${fmt(fan.max)}  (target p99 <= 50 ms)`,
    );
    const own = summary(
      sseGw.lines
        .filter((l) => l.event === 'sse_fanout' && l.clients === SSE_CLIENTS)
        .slice(5)
        .map((l) => Number(l.ms)),
    );
    console.log(
      `   gateway's share    : p50 ${fmt(own.p50)}  p99 ${fmt(own.p99)}  max ${fmt(own.max)}  (notification to last write)`,
    );
    await new Promise((r) => setTimeout(r, 500));

    // 4. Catch-up.
    const from = Number(
      (await db.pool.query<{ id: string }>('SELECT coalesce(max(id), 0)::text AS id FROM events')).rows[0]!.id,
    );
    const tIns = performance.now();
    await db.pool.query(
      `INSERT INTO events (type, source_id, payload)
       SELECT 'sync_progress', '00000000-0000-0000-0000-000000000000',
              jsonb_build_object('sync_id', gen_random_uuid(), 'phase', 'parsing', 'progress_done', g, 'progress_total', $1::int)
       FROM generate_series(1, $1::int) g`,
      [CATCHUP_ROWS],
    );
    const last = Number(await writeEvent(db.pool, { type: 'sync_progress', payload: { last: true } }));
    const insMs = performance.now() - tIns;
    await new Promise((r) => setTimeout(r, 300));
    const t0 = performance.now();
    const c = await connectSse(`${sseGw.url}/api/events?last_event_id=${from}`, auth);
    let got = 0;
    let tFirst = 0;
    await new Promise<void>((resolve) => {
      c.onFrame = (f) => {
        if (f.id === undefined) return;
        if (got++ === 0) tFirst = performance.now() - t0;
        if (Number(f.id) === last) resolve();
      };
    });
    const total = performance.now() - t0;
    c.close();
    console.log(`\n4. catch-up of ${CATCHUP_ROWS + 1} event rows (rows inserted in ${(insMs / 1000).toFixed(1)} s)`);
    console.log(
      `   first frame after ${fmt(tFirst)}, all ${got} frames after ${(total / 1000).toFixed(2)} s (${Math.round(got / (total / 1000))} frames/s)`,
    );
  } finally {
    await gw.stop();
    await sseGw?.stop();
    await upstream.close();
    await idp.close();
    await db.drop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
