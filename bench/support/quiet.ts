/**
 * Waiting for a quiet machine before a timed sync: no autovacuum worker runs (every sync inserts ~10^5 graph rows,
 * so the insert-driven vacuum of the label tables follows it) and the CPUs were at least 90 % idle over the last two
 * seconds (/proc/stat; the load average lags by minutes). Gives up after `maxMs`, returning what it saw.
 */
import { readFileSync } from 'node:fs';
import type pg from 'pg';

function cpuTimes(): { idle: number; total: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return { idle: f[3]! + f[4]!, total: f.reduce((a, b) => a + b, 0) };
}

/** Resolves once quiet (null) or after `maxMs` with a sentence saying why it was not. */
export async function settle(pool: pg.Pool, maxMs = 300_000): Promise<string | null> {
  const t = performance.now();
  for (;;) {
    const a = cpuTimes();
    await new Promise((res) => setTimeout(res, 2000));
    const b = cpuTimes();
    const idle = (b.idle - a.idle) / Math.max(1, b.total - a.total);
    const r = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'`,
    );
    if (r.rows[0]!.n === 0 && idle >= 0.9) return null;
    if (performance.now() - t > maxMs) {
      return `not quiet after ${Math.round(maxMs / 1000)} s: ${(idle * 100).toFixed(0)} % idle, autovacuum workers ${r.rows[0]!.n}`;
    }
  }
}
