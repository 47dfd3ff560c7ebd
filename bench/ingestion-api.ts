/**
 * Ingestion component figures: latency and throughput of POST /api/syncs (row + event + Temporal start) across many
 * sources, and of the one-source race (50 concurrent creates → 1 created, 49 refused). Real PostgreSQL (a fresh
 * database), the real Temporal server, real HTTP. No worker runs: the started workflows are terminated at the end.
 *
 *   DATABASE_URL=... TEMPORAL_ADDRESS=... node --import tsx bench/ingestion-api.ts [sources=200] [concurrency=20]
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { AddressInfo } from 'node:net';
import { createApp } from '../temporal/ingestion/app.ts';
import { createLogger } from '../lib/log.ts';
import { createTestDatabase } from '../test/support/db.ts';
import { connectClient } from '../test/support/temporal.ts';
import { SYNC_WORKFLOW_TYPE } from '../workflows/sync-contract.ts';

const { positionals } = parseArgs({ allowPositionals: true });
const sources = Number(positionals[0] ?? 200);
const concurrency = Number(positionals[1] ?? 20);

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

const db = await createTestDatabase();
const { client, close } = await connectClient();
const taskQueue = `bench-${randomBytes(4).toString('hex')}`;
const app = createApp({
  pool: db.pool,
  temporal: client,
  log: createLogger('ingestion', { level: 'error' }),
  settings: {
    taskQueue,
    scheduleIdPrefix: `bench-${taskQueue}-`,
    cancelWaitMs: 0,
    stopTimeoutMs: 0,
    startConflictWaitMs: 0,
  },
});
const server = app.listen(0, '127.0.0.1');
await new Promise((r) => server.once('listening', r));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const ids: string[] = [];
for (let i = 0; i < sources; i++) {
  const r = await db.pool.query<{ id: string }>(`INSERT INTO sources (owner, name) VALUES ('bench', $1) RETURNING id`, [
    `repo-${i}`,
  ]);
  ids.push(r.rows[0]!.id);
}

const post = async (sourceId: string) => {
  const t = performance.now();
  const res = await fetch(`${url}/api/syncs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ source_id: sourceId }),
  });
  await res.text();
  return { status: res.status, ms: performance.now() - t };
};

// 1. Creates across distinct sources, `concurrency` in flight.
const latencies: number[] = [];
let next = 0;
const t0 = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < ids.length) {
      const r = await post(ids[next++]!);
      if (r.status !== 201) throw new Error(`create answered ${r.status}`);
      latencies.push(r.ms);
    }
  }),
);
const wall = performance.now() - t0;
latencies.sort((a, b) => a - b);

// Baseline: bare Temporal starts at the same concurrency (the dev server's own rate bounds ours).
const baseIds: string[] = [];
let b = 0;
const tb = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (b < sources) {
      b++;
      const id = randomUUID();
      baseIds.push(id);
      await client.workflow.start(SYNC_WORKFLOW_TYPE, {
        taskQueue,
        workflowId: id,
        args: [{ syncId: id, sourceId: id }],
      });
    }
  }),
);
const baseWall = performance.now() - tb;

// 2. The race: 50 concurrent creates for one fresh source.
const raceSource = (
  await db.pool.query<{ id: string }>(`INSERT INTO sources (owner, name) VALUES ('bench', 'race') RETURNING id`)
).rows[0]!.id;
const t1 = performance.now();
const race = await Promise.all(Array.from({ length: 50 }, () => post(raceSource)));
const raceWall = performance.now() - t1;

console.log(`POST /api/syncs, ${sources} sources, ${concurrency} in flight:`);
console.log(`  throughput ${((sources / wall) * 1000).toFixed(1)} creates/s (wall ${wall.toFixed(0)} ms)`);
console.log(
  `  latency ms p50 ${pct(latencies, 50).toFixed(1)}  p90 ${pct(latencies, 90).toFixed(1)}  p99 ${pct(latencies, 99).toFixed(1)}  max ${latencies.at(-1)!.toFixed(1)}`,
);
console.log(
  `  baseline: bare client.workflow.start ${((sources / baseWall) * 1000).toFixed(1)} starts/s at the same concurrency`,
);
console.log(
  `race, 50 concurrent for one source: ${race.filter((r) => r.status === 201).length} × 201, ${race.filter((r) => r.status === 409).length} × 409 in ${raceWall.toFixed(0)} ms`,
);

for (const id of [...ids, raceSource, ...baseIds]) {
  await client.workflow
    .getHandle(id)
    .terminate('benchmark over')
    .catch(() => undefined);
}
server.close();
await close();
await db.drop();
