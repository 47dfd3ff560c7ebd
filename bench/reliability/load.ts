/**
 * Load steps of the harness: the summary storm (100 forced summaries on a 3 s model while 20 readers read) and 20
 * sources syncing at once while 20 readers go over every read endpoint.
 */
import {
  URLS,
  createSource,
  fmt,
  http,
  loadNow,
  log,
  percentile,
  runCounts,
  setChatLatency,
  startSync,
  waitEnd,
} from './common.ts';
import type { StepResult } from './faults.ts';
import { everyRead, forMs, nodeId, ordinaryReads, readers, report, type ReadTargets } from './readers.ts';

/** The four reads the latency target names. */
const TARGET_READS = ['node', 'file', 'stats', 'search'];

export async function storm(t: ReadTargets, round: number): Promise<StepResult[]> {
  await setChatLatency(3000);
  try {
    const idle = await readers(20, forMs(10_000), ordinaryReads(t));
    const idleP99 = report(`storm #${round}: reads, no summaries (10 s)`, idle, TARGET_READS);
    let done = 0;
    // 100 requests over the corpus's files (with fewer than 100 files, some join a generation already in flight).
    const replies = Array.from({ length: 100 }, (_, i) =>
      http(
        'GET',
        `${URLS.graph}/api/graph/nodes/${encodeURIComponent(nodeId(t, t.files[i % t.files.length]!))}/summary?force=true`,
        undefined,
        { timeoutMs: 130_000 },
      ).then((r) => {
        done++;
        return r;
      }),
    );
    const busy = await readers(20, () => done >= 100, ordinaryReads(t));
    const answers = await Promise.all(replies);
    const p99 = report(`storm #${round}: reads while 100 summaries wait on a 3 s model`, busy, TARGET_READS);
    const st: Record<string, number> = {};
    for (const r of answers) st[r.status] = (st[r.status] ?? 0) + 1;
    const other5xx = answers.filter((r) => r.status >= 500 && r.status !== 503).length;
    const retryAfter = answers.filter((r) => r.status === 503).every((r) => r.headers?.get('retry-after'));
    const ok200 = answers.filter((r) => r.status === 200).map((r) => r.ms);
    log(
      `storm #${round}: summaries ${JSON.stringify(st)}; 503 with Retry-After: ${retryAfter}; slowest 200 ${fmt(percentile(ok200, 100))} (load ${loadNow()})`,
    );
    return [
      {
        step: `reads p99 <= 100 ms during the summary storm #${round}`,
        ok: p99 <= 100 && busy.hung === 0,
        detail: `p99 ${fmt(p99)} over ${TARGET_READS.join('/')} (idle ${fmt(idleP99)}), hung ${busy.hung}, load ${loadNow()}`,
      },
      {
        step: `summary storm answers #${round}`,
        ok: other5xx === 0 && retryAfter && answers.every((r) => !r.hung),
        detail: JSON.stringify(st),
      },
    ];
  } finally {
    await setChatLatency(0);
  }
}

/** A run of the 20 must end within this (they share the worker: 20 x the clean run's time, plus slack). */
export const syncsBound = (cleanMs: number) => Math.max(300_000, 20 * cleanMs + 120_000);

export async function syncs20(
  t: ReadTargets,
  corpus: string,
  baseline: Record<string, number>,
  cleanMs: number,
  round: number,
): Promise<StepResult> {
  const tag = `${Date.now().toString(36)}-${round}`;
  const sources = await Promise.all(Array.from({ length: 20 }, (_, i) => createSource(`load-${tag}-${i}`, corpus)));
  const runs = await Promise.all(sources.map((s) => startSync(s)));
  const bound = syncsBound(cleanMs);
  let finished = 0;
  const ends = Promise.all(
    runs.map((r) =>
      waitEnd(r, bound).then((e) => {
        finished++;
        return e;
      }),
    ),
  );
  const rd = await readers(20, () => finished >= 20, everyRead(t));
  const e = await ends;
  report(`syncs20 #${round}: reads over every read endpoint while 20 sources sync`, rd);
  let equal = 0;
  const differ: string[] = [];
  for (const r of runs) {
    const c = await runCounts(r);
    if (JSON.stringify(c) === JSON.stringify(baseline)) equal++;
    else differ.push(JSON.stringify(c));
  }
  const completed = e.filter((x) => x.status === 'completed').length;
  const slowest = Math.max(...e.map((x) => x.ms));
  log(
    `syncs20 #${round}: ${completed}/20 completed, ${equal}/20 counts equal the clean run, slowest ${Math.round(slowest / 1000)} s (bound ${bound / 1000} s) (load ${loadNow()})`,
  );
  for (const d of differ.slice(0, 3)) log(`  differ: ${d}`);
  const bad = Object.keys(rd.statuses).filter((s) => s !== '200' && s !== '503');
  return {
    step: `20 concurrent syncs + 20 readers over every read endpoint #${round}`,
    ok: completed === 20 && equal === 20 && rd.hung === 0 && bad.length === 0,
    detail: `${completed}/20 completed within ${Math.round(slowest / 1000)} s (bound ${bound / 1000} s), ${equal}/20 equal counts; reads ${JSON.stringify(rd.statuses)}, hung ${rd.hung}`,
  };
}
