/**
 * The retention workflow's activities (workflows/retention.ts; docs/decisions.md "Retention"). Each is one step an
 * operator sees in the Temporal UI, safe to retry: every sync is re-checked under its row lock before anything is
 * removed, so a sync pinned, retried or purged since the plan was made is left alone.
 *
 *   planRetention   which syncs are past their source's window (to clean or, when cancelled, to purge) and which
 *                   cleaned syncs are due for purge;
 *   cleanSyncs      each in its own transaction: status `cleaned`, cleaned_at, event, graph removed;
 *   purgeSyncs      each in its own transaction: the run deleted with everything of it;
 *   pruneEvents     event rows older than the age deleted, the watermark the event stream reads raised first;
 *   vacuumGraph     VACUUM (ANALYZE) of the tables the removals left dead rows in, so the space is reused by the
 *                   next sync instead of growing the files (and the planner knows the new sizes).
 */
import { Context } from '@temporalio/activity';
import type { Pool } from '../../lib/db.ts';
import { withTransaction } from '../../lib/db.ts';
import type { Logger } from '../../lib/log.ts';
import type { RetentionInput } from '../../lib/retention.ts';
import { cleanRun, getSync, purgeRun, sharedBy } from '../../lib/sync-runs/index.ts';
import {
  cleanedSyncsDue,
  eventsOlderThan,
  graphLabelTables,
  pruneEventsThrough,
  syncsBeyondWindow,
  vacuumAnalyze,
} from '../store/retention.ts';

export interface RetentionDeps {
  pool: Pool;
  log: Logger;
}

export interface RetentionPlan {
  /** Completed or failed syncs past their source's window, oldest first. */
  clean: string[];
  /** Cleaned syncs cleaned longer than purgeAfterSeconds ago, and cancelled syncs past the window as long. */
  purge: string[];
  /** How many more there were beyond maxSyncsPerRun (worked off by the next runs). */
  deferred: number;
}

export interface RemovalResult {
  done: number;
  /** Left alone because their state changed since the plan (pinned, retried, already removed). */
  skipped: number;
  graphRows?: number;
}

/** Rows deleted per statement when pruning events (short transactions beside the writers). */
const EVENT_PRUNE_BATCH = 10_000;

/** The tables a clean or purge leaves dead rows in, besides the graph's label tables. */
const SYNC_TABLES = ['sync_runs', 'sync_files', 'sync_steps', 'sync_issues', 'file_contents', 'file_content_chunks'];

function heartbeat(details: unknown): void {
  try {
    Context.current().heartbeat(details);
  } catch {
    // Not inside an activity (called directly): nothing to report to.
  }
}

/** Which syncs to clean and to purge, at most maxSyncsPerRun of each. */
async function planRetention({ pool, log }: RetentionDeps, input: RetentionInput): Promise<RetentionPlan> {
  const beyond = await syncsBeyondWindow(pool, input);
  // Newest first: a sync sharing an older sync's graph (V50) is purged before the sync holding it.
  const cleaned = await cleanedSyncsDue(pool, input.purgeAfterSeconds);
  const clean = beyond.filter((r) => r.status !== 'cancelled').map((r) => r.id);
  // A cancelled run cannot be cleaned (spec: completed or failed only): it is purged once it has been over as
  // long as a cleaned sync is kept.
  const purge = [...cleaned, ...beyond.filter((r) => r.status === 'cancelled' && r.due).map((r) => r.id)];
  const max = input.maxSyncsPerRun;
  const plan = {
    clean: clean.slice(0, max),
    purge: purge.slice(0, max),
    deferred: Math.max(0, clean.length - max) + Math.max(0, purge.length - max),
  };
  log.info('retention_planned', { clean: plan.clean.length, purge: plan.purge.length, deferred: plan.deferred });
  return plan;
}

async function cleanSyncs({ pool, log }: RetentionDeps, syncIds: string[]): Promise<RemovalResult> {
  let done = 0;
  let skipped = 0;
  let graphRows = 0;
  for (const syncId of syncIds) {
    heartbeat({ done, skipped });
    const cleaned = await withTransaction(pool, (tx) => cleanRun(tx, syncId, { unpinnedOnly: true }));
    if (!cleaned) {
      skipped++;
      continue;
    }
    done++;
    graphRows += cleaned.removed;
    log.info('sync_cleaned', {
      sync_id: syncId,
      source_id: cleaned.row.source_id,
      graph_rows_removed: cleaned.removed,
      by: 'retention',
    });
  }
  return { done, skipped, graphRows };
}

/** Purges one sync if it is still due (under its row lock); the run purged, or undefined when left alone. */
async function purgeIfDue(pool: Pool, syncId: string, purgeAfterSeconds: number) {
  return withTransaction(pool, async (tx) => {
    const current = await getSync(tx, syncId, true);
    if (!current || current.pinned) return undefined;
    const over = current.status === 'cleaned' ? current.cleaned_at : current.completed_at;
    const due = over !== null && over.getTime() < Date.now() - purgeAfterSeconds * 1000;
    if (!due || (current.status !== 'cleaned' && current.status !== 'cancelled')) return undefined;
    // Its graph rows are still another sync's graph (V50): purged after that sync, in a later run.
    if ((await sharedBy(tx, syncId)).length > 0) return undefined;
    await purgeRun(tx, current);
    return current;
  });
}

async function purgeSyncs(
  { pool, log }: RetentionDeps,
  syncIds: string[],
  purgeAfterSeconds: number,
): Promise<RemovalResult> {
  let done = 0;
  let skipped = 0;
  for (const syncId of syncIds) {
    heartbeat({ done, skipped });
    const purged = await purgeIfDue(pool, syncId, purgeAfterSeconds);
    if (!purged) {
      skipped++;
      continue;
    }
    done++;
    log.info('sync_purged', { sync_id: syncId, source_id: purged.source_id, status: purged.status, by: 'retention' });
  }
  return { done, skipped };
}

async function pruneEvents(
  { pool, log }: RetentionDeps,
  eventMaxAgeHours: number,
): Promise<{ pruned: number; prunedThrough: number | null }> {
  const upTo = await eventsOlderThan(pool, eventMaxAgeHours);
  if (upTo === null) return { pruned: 0, prunedThrough: null };
  let pruned = 0;
  for (;;) {
    heartbeat({ pruned });
    const n = await withTransaction(pool, (tx) => pruneEventsThrough(tx, upTo, EVENT_PRUNE_BATCH));
    pruned += n;
    if (n < EVENT_PRUNE_BATCH) break;
  }
  if (pruned > 0) log.info('events_pruned', { pruned, pruned_through: upTo });
  return { pruned, prunedThrough: upTo };
}

async function vacuumGraph({ pool }: RetentionDeps): Promise<{ tables: number; ms: number }> {
  const t0 = Date.now();
  const tables = [...(await graphLabelTables(pool)), ...SYNC_TABLES, 'events'];
  for (const t of tables) {
    heartbeat({ table: t });
    await vacuumAnalyze(pool, t);
  }
  return { tables: tables.length, ms: Date.now() - t0 };
}

export function createRetentionActivities(deps: RetentionDeps) {
  return {
    planRetention: (input: RetentionInput) => planRetention(deps, input),
    cleanSyncs: ({ syncIds }: { syncIds: string[] }) => cleanSyncs(deps, syncIds),
    purgeSyncs: ({ syncIds, purgeAfterSeconds }: { syncIds: string[]; purgeAfterSeconds: number }) =>
      purgeSyncs(deps, syncIds, purgeAfterSeconds),
    pruneEvents: ({ eventMaxAgeHours }: { eventMaxAgeHours: number }) => pruneEvents(deps, eventMaxAgeHours),
    vacuumGraph: () => vacuumGraph(deps),
  };
}

export type RetentionActivities = ReturnType<typeof createRetentionActivities>;
