/**
 * Syncs asked for by webhook deliveries, and the sweeper that starts them (docs/webhooks.md "Coalescing").
 *
 * A delivery never starts a sync itself: it records (or refreshes) one follow-up per (source, ref) and is answered
 * at once. The sweeper starts a follow-up when its source has no active sync and either
 * - no webhook-triggered sync of the source started within `cooldownMs` (the first push of a quiet repository
 *   syncs at once), or
 * - requests for it have paused for `quietMs` (a burst of pushes becomes one sync of the newest commit), or
 * - it has waited `maxWaitMs` (a repository pushed to without pause is still synced).
 * So a burst that arrives while a sync runs ends in exactly one more sync, of the branch's newest commit, and the
 * specification's one active sync per source holds (createSync's unique index arbitrates).
 *
 * The sweeper claims a follow-up with a lease (claimed_until) instead of holding a row lock across the Temporal
 * call: no pooled connection waits on Temporal, and a sweeper that dies mid-start leaves the row to be claimed
 * again when the lease ends. It also cleans the syncs of closed pull requests (pull_request_syncs.closed_at).
 */
import type { Queryable } from '../../../lib/db.ts';
import { ConflictError, FailedPreconditionError, NotFoundError } from '../../../lib/errors.ts';
import { requestDeadlineMs, type IngestionDeps } from '../deps.ts';
import { cleanSync } from '../syncs/clean.ts';
import type { Sweeper, SweeperSettings } from './types.ts';

export type { Sweeper, SweeperSettings };
import { createSync } from '../syncs/create.ts';

export interface FollowupRequest {
  sourceId: string;
  ref: string;
  commit: string | null;
  provider: string;
  trigger: string;
  pr?: { number: number; baseRef: string };
}

export const DEFAULT_SWEEPER: SweeperSettings = {
  quietMs: 2000,
  cooldownMs: 30_000,
  maxWaitMs: 60_000,
  intervalMs: 1000,
};

/** Records a request for a sync of `ref`, replacing an older request for the same ref (the newest commit wins). */
export async function requestFollowup(db: Queryable, f: FollowupRequest): Promise<void> {
  await db.query(
    `INSERT INTO sync_followups (source_id, ref, commit_sha, pr_number, base_ref, provider, trigger)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (source_id, ref) DO UPDATE
       SET commit_sha = EXCLUDED.commit_sha, pr_number = EXCLUDED.pr_number, base_ref = EXCLUDED.base_ref,
           provider = EXCLUDED.provider, trigger = EXCLUDED.trigger, version = sync_followups.version + 1,
           requested_at = now()`,
    [f.sourceId, f.ref, f.commit, f.pr?.number ?? null, f.pr?.baseRef ?? null, f.provider, f.trigger],
  );
}

/** Marks a pull request's syncs closed and drops its queued follow-up; the sweeper cleans them. */
export async function closePullRequest(db: Queryable, sourceId: string, number: number): Promise<number> {
  await db.query(`DELETE FROM sync_followups WHERE source_id = $1 AND pr_number = $2`, [sourceId, number]);
  const r = await db.query(
    `UPDATE pull_request_syncs SET closed_at = now()
      WHERE source_id = $1 AND pr_number = $2 AND closed_at IS NULL`,
    [sourceId, number],
  );
  return r.rowCount ?? 0;
}

interface Claimed {
  source_id: string;
  ref: string;
  commit_sha: string | null;
  pr_number: number | null;
  base_ref: string | null;
  provider: string;
  trigger: string;
  version: string;
}

const LEASE_MS = 60_000;

async function claimOne(db: Queryable, s: SweeperSettings): Promise<Claimed | undefined> {
  const r = await db.query<Claimed>(
    `UPDATE sync_followups f SET claimed_until = now() + make_interval(secs => $4::double precision / 1000)
      WHERE (f.source_id, f.ref) = (
        SELECT c.source_id, c.ref FROM sync_followups c
         WHERE (c.claimed_until IS NULL OR c.claimed_until < now())
           AND NOT EXISTS (SELECT 1 FROM sync_runs r
                            WHERE r.source_id = c.source_id AND r.status IN ('pending', 'running'))
           AND (c.requested_at <= now() - make_interval(secs => $1::double precision / 1000)
                OR c.first_requested_at <= now() - make_interval(secs => $3::double precision / 1000)
                OR NOT EXISTS (SELECT 1 FROM sync_runs r
                                WHERE r.source_id = c.source_id AND r.triggered_by LIKE 'webhook:%'
                                  AND r.created_at > now() - make_interval(secs => $2::double precision / 1000)))
         ORDER BY c.first_requested_at
         LIMIT 1
         FOR UPDATE SKIP LOCKED)
      RETURNING f.source_id, f.ref, f.commit_sha, f.pr_number, f.base_ref, f.provider, f.trigger, f.version`,
    [s.quietMs, s.cooldownMs, s.maxWaitMs, LEASE_MS],
  );
  return r.rows[0];
}

async function release(db: Queryable, c: Claimed, started: boolean): Promise<void> {
  if (started) {
    // Started: the request is done, unless a newer one came in meanwhile (it stays queued, unclaimed).
    await db.query(`DELETE FROM sync_followups WHERE source_id = $1 AND ref = $2 AND version = $3`, [
      c.source_id,
      c.ref,
      c.version,
    ]);
  }
  await db.query(`UPDATE sync_followups SET claimed_until = NULL WHERE source_id = $1 AND ref = $2`, [
    c.source_id,
    c.ref,
  ]);
}

async function startClaimed(deps: IngestionDeps, c: Claimed): Promise<void> {
  const { pool, log } = deps;
  try {
    const row = await deps.temporal.connection.withDeadline(Date.now() + requestDeadlineMs(deps.settings), () =>
      createSync(deps, {
        sourceId: c.source_id,
        triggeredBy: c.trigger,
        ref: c.ref,
        ...(c.pr_number !== null
          ? {
              review: {
                provider: c.provider,
                number: c.pr_number,
                baseRef: c.base_ref ?? '',
                headCommit: c.commit_sha,
              },
            }
          : {}),
      }),
    );
    await release(pool, c, true);
    log.info('webhook_sync_started', { sync_id: row.id, source_id: c.source_id, ref: c.ref, trigger: c.trigger });
  } catch (err) {
    if (err instanceof NotFoundError || err instanceof FailedPreconditionError) {
      // The source is gone or disabled: the request can never run.
      await release(pool, c, true);
      log.warning('webhook_sync_dropped', { source_id: c.source_id, ref: c.ref, error: err });
      return;
    }
    await release(pool, c, false);
    // A sync that started meanwhile (409) is not a problem: the follow-up runs after it.
    if (!(err instanceof ConflictError)) {
      log.warning('webhook_sync_start_failed', { source_id: c.source_id, ref: c.ref, error: err });
    }
  }
}

/** Cleans completed or failed syncs of closed pull requests (one at a time; a later sweep takes the rest). */
async function cleanClosed(deps: IngestionDeps): Promise<boolean> {
  const r = await deps.pool.query<{ sync_id: string }>(
    `SELECT p.sync_id FROM pull_request_syncs p JOIN sync_runs r ON r.id = p.sync_id
      WHERE p.closed_at IS NOT NULL AND r.status IN ('completed', 'failed')
      ORDER BY p.closed_at LIMIT 1`,
  );
  const syncId = r.rows[0]?.sync_id;
  if (!syncId) return false;
  try {
    await cleanSync(deps, syncId);
  } catch (err) {
    // Another sweeper cleaned it first (or it is no longer cleanable): nothing to do.
    if (!(err instanceof FailedPreconditionError) && !(err instanceof NotFoundError)) throw err;
  }
  return true;
}

/** Delivery ids are kept this long: a host retries a delivery within hours, never after days. */
export const DELIVERY_RETENTION_DAYS = 7;

async function pruneDeliveries(db: Queryable): Promise<void> {
  await db.query(`DELETE FROM webhook_deliveries WHERE received_at < now() - make_interval(days => $1)`, [
    DELIVERY_RETENTION_DAYS,
  ]);
}

/** One pass: starts every follow-up that may start now, cleans closed pull requests' syncs. */
export async function sweep(deps: IngestionDeps, s: SweeperSettings, maxStarts = 20): Promise<number> {
  let started = 0;
  for (; started < maxStarts; started++) {
    const claimed = await claimOne(deps.pool, s);
    if (!claimed) break;
    await startClaimed(deps, claimed);
  }
  for (let i = 0; i < maxStarts && (await cleanClosed(deps)); i++);
  return started;
}

/** Runs `sweep` every `intervalMs` and on `kick`, one pass at a time. intervalMs 0: only on kick. */
export function startSweeper(deps: IngestionDeps, s: SweeperSettings): Sweeper {
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  let prunedAt = 0;
  const pass = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    const prune = Date.now() - prunedAt > 60_000;
    if (prune) prunedAt = Date.now();
    running = sweep(deps, s)
      .then(() => (prune ? pruneDeliveries(deps.pool) : undefined))
      .catch((err: unknown) => deps.log.warning('webhook_sweep_failed', { error: err }))
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          pass();
        }
      });
  };
  const timer = s.intervalMs > 0 ? setInterval(pass, s.intervalMs) : null;
  timer?.unref();
  return {
    kick: pass,
    stop: async () => {
      stopped = true;
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
