/**
 * Helper process of bench/gateway.ts: opens `count` SSE clients on `url` and reports, for every sync_progress frame,
 * the latency from the emission time in its payload (`t`, wall-clock milliseconds with sub-millisecond precision:
 * performance.timeOrigin + performance.now(), comparable across processes). Talks to the parent over IPC.
 */
import { connectSse, type SseClient } from '../test/support/sse-client.ts';

const [url, token, countArg] = process.argv.slice(2);
const count = Number(countArg);
const latencies: number[] = [];
const clients: SseClient[] = [];
const now = () => performance.timeOrigin + performance.now();

for (let i = 0; i < count; i += 50) {
  const batch = await Promise.all(
    Array.from({ length: Math.min(50, count - i) }, () => connectSse(url!, { authorization: `Bearer ${token}` })),
  );
  clients.push(...batch);
}
const refused = clients.filter((c) => c.status !== 200).length;
for (const c of clients) {
  c.onFrame = (f) => {
    if (f.event !== 'sync_progress' || f.data === undefined) return;
    const t = (JSON.parse(f.data) as { payload: { t?: number } }).payload.t;
    if (typeof t === 'number') latencies.push(now() - t);
  };
}
process.send!({ ready: true, refused });
process.on('message', (msg: { done?: boolean }) => {
  if (!msg.done) return;
  for (const c of clients) c.close();
  process.send!({ latencies }, () => process.exit(0));
});
