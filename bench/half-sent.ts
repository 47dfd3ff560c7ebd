/**
 * Issue 27's gateway target: with N half-sent request bodies open through the gateway (authenticated
 * `POST /api/sources`, `Content-Length: 1000`, 10 bytes sent, then silence), `GET /api/graph/stats` through the gateway
 * keeps answering (target p99 <= 100 ms at N = 200) and every half-sent request ends with 408 (target: within 30 s).
 * The same reads without the half-sent requests come first, in the same run, as the baseline.
 *
 *   node --import tsx bench/half-sent.ts [--open 200] [--baseline 300] [--window 35]
 *
 * Reads run back to back until the first half-sent request ends or `--window` seconds pass; a read that fails or takes
 * longer than 5 s counts as a failure. Half-sent requests still open after the window are reported so, then closed.
 *
 * Runs against the local stack (`bash scripts/stack.sh services`; GATEWAY_URL etc. from .stack/env).
 */
import net from 'node:net';
import { loadavg } from 'node:os';
import { auth, gateway } from './support/gateway.ts';

const arg = (name: string, d: number) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? d : Number(process.argv[i + 1]);
};
const OPEN = arg('--open', 200);
const BASELINE = arg('--baseline', 300);
const WINDOW_MS = arg('--window', 35) * 1000;

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

function summary(xs: number[]): string {
  return `n=${xs.length} p50=${pct(xs, 50).toFixed(1)} p99=${pct(xs, 99).toFixed(1)} max=${Math.max(...xs).toFixed(1)} ms`;
}

/** One read's milliseconds, or null when it failed or took longer than 5 s. */
async function stats(headers: Record<string, string>): Promise<number | null> {
  const t = performance.now();
  try {
    const r = await fetch(`${gateway}/api/graph/stats`, { headers, signal: AbortSignal.timeout(5000) });
    await r.arrayBuffer();
    return r.status === 200 ? performance.now() - t : null;
  } catch {
    return null;
  }
}

interface HalfSent {
  status: Promise<{ status: number; ms: number }>;
  socket: net.Socket;
}

function halfSent(headers: Record<string, string>): HalfSent {
  const u = new URL(gateway);
  const socket = net.connect(Number(u.port), u.hostname);
  const started = performance.now();
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (d: string) => (text += d));
  socket.on('error', () => undefined);
  socket.write(
    `POST /api/sources HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: ${headers.authorization}\r\n` +
      `Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"owner":"`,
  );
  return {
    socket,
    status: new Promise((resolve) => {
      socket.on('close', () =>
        resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0), ms: performance.now() - started }),
      );
    }),
  };
}

const headers = await auth();
for (let i = 0; i < 20; i++) await stats(headers); // warm the connection pools and the token cache
console.log(`gateway ${gateway}; load before: ${load()}`);

const base: number[] = [];
let baseFailed = 0;
for (let i = 0; i < BASELINE; i++) {
  const ms = await stats(headers);
  if (ms === null) baseFailed++;
  else base.push(ms);
}
console.log(`baseline GET /api/graph/stats:      ${summary(base)}, ${baseFailed} failed  (load ${load()})`);

const open = Array.from({ length: OPEN }, () => halfSent(headers));
let closed = 0;
const ended = Promise.all(open.map((h) => h.status.then((s) => (closed++, s))));
await new Promise((r) => setTimeout(r, 200)); // every half-sent request is in
const during: number[] = [];
let failed = 0;
const until = performance.now() + WINDOW_MS;
while (closed === 0 && performance.now() < until) {
  const ms = await stats(headers);
  if (ms === null) failed++;
  else during.push(ms);
}
const stillOpen = OPEN - closed;
if (stillOpen > 0) {
  await new Promise((r) => setTimeout(r, Math.max(0, until - performance.now())));
  for (const h of open) h.socket.destroy();
}
const results = await ended;
console.log(
  `with ${OPEN} half-sent bodies open:  ${during.length > 0 ? summary(during) : 'n=0'}, ${failed} failed  (load ${load()})`,
);
if (during.length > 0)
  console.log(`p99 ratio (under attack / baseline): ${(pct(during, 99) / pct(base, 99)).toFixed(2)}`);
const byStatus = new Map<number, number>();
for (const r of results) byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
const ms = results.map((r) => r.ms);
console.log(
  `half-sent requests: ${[...byStatus].map(([s, n]) => `${n} x ${s || `no answer within ${WINDOW_MS / 1000} s`}`).join(', ')}; ` +
    `ended after min ${(Math.min(...ms) / 1000).toFixed(2)} s, max ${(Math.max(...ms) / 1000).toFixed(2)} s`,
);
