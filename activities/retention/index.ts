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

export function createRetentionActivities({ pool, log }: RetentionDeps) {
  return {
    async planRetention(input: RetentionInput): Promise<RetentionPlan> {
      // The window of each source: its newest keep_completed completed syncs and newest keep_failed failed or
      // cancelled ones (per-source `config.retention`, else the service-wide counts); pinned syncs are kept besides.
      // A pull request's syncs (docs/webhooks.md) have a window of their own per request, so reviews never push the
      // branch's syncs out (they are cleaned when the request closes).
      const beyond = await pool.query<{ id: string; status: string; due: boolean }>(
        `WITH policy AS (
           SELECT s.id AS source_id,
                  CASE WHEN jsonb_typeof(s.config->'retention'->'keep_completed') = 'number'
                       THEN greatest(1, (s.config->'retention'->>'keep_completed')::numeric::int) ELSE $1 END AS keep_completed,
                  CASE WHEN jsonb_typeof(s.config->'retention'->'keep_failed') = 'number'
                       THEN greatest(0, (s.config->'retention'->>'keep_failed')::numeric::int) ELSE $2 END AS keep_failed
             FROM sources s
         ), ranked AS (
           SELECT r.id, r.status, r.pinned, r.completed_at, r.created_at, p.keep_completed, p.keep_failed,
                  row_number() OVER (PARTITION BY r.source_id, r.status = 'completed', pr.pr_number
                                     ORDER BY r.created_at DESC, r.id DESC) AS rank
             FROM sync_runs r JOIN policy p ON p.source_id = r.source_id
             LEFT JOIN pull_request_syncs pr ON pr.sync_id = r.id
            WHERE r.status IN ('completed', 'failed', 'cancelled')
         )
         SELECT id, status, coalesce(completed_at, created_at) < now() - make_interval(secs => $3) AS due
           FROM ranked
          WHERE NOT pinned
            AND rank > CASE WHEN status = 'completed' THEN keep_completed ELSE keep_failed END
          ORDER BY created_at, id`,
        [input.keepCompleted, input.keepFailed, input.purgeAfterSeconds],
      );
      // Newest first: a sync sharing an older sync's graph (V50) is purged before the sync holding it.
      const cleaned = await pool.query<{ id: string }>(
        `SELECT id FROM sync_runs
          WHERE status = 'cleaned' AND NOT pinned AND cleaned_at < now() - make_interval(secs => $1)
          ORDER BY created_at DESC, id DESC`,
        [input.purgeAfterSeconds],
      );
      const clean = beyond.rows.filter((r) => r.status !== 'cancelled').map((r) => r.id);
      // A cancelled run cannot be cleaned (spec: completed or failed only): it is purged once it has been over as
      // long as a cleaned sync is kept.
      const purge = [
        ...cleaned.rows.map((r) => r.id),
        ...beyond.rows.filter((r) => r.status === 'cancelled' && r.due).map((r) => r.id),
      ];
      const max = input.maxSyncsPerRun;
      const plan = {
        clean: clean.slice(0, max),
        purge: purge.slice(0, max),
        deferred: Math.max(0, clean.length - max) + Math.max(0, purge.length - max),
      };
      log.info('retention_planned', { clean: plan.clean.length, purge: plan.purge.length, deferred: plan.deferred });
      return plan;
    },

    async cleanSyncs({ syncIds }: { syncIds: string[] }): Promise<RemovalResult> {
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
    },

    async purgeSyncs({
      syncIds,
      purgeAfterSeconds,
    }: {
      syncIds: string[];
      purgeAfterSeconds: number;
    }): Promise<RemovalResult> {
      let done = 0;
      let skipped = 0;
      for (const syncId of syncIds) {
        heartbeat({ done, skipped });
        const purged = await withTransaction(pool, async (tx) => {
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
        if (!purged) {
          skipped++;
          continue;
        }
        done++;
        log.info('sync_purged', {
          sync_id: syncId,
          source_id: purged.source_id,
          status: purged.status,
          by: 'retention',
        });
      }
      return { done, skipped };
    },

    async pruneEvents({
      eventMaxAgeHours,
    }: {
      eventMaxAgeHours: number;
    }): Promise<{ pruned: number; prunedThrough: number | null }> {
      const through = await pool.query<{ id: string | null }>(
        `SELECT max(id)::text AS id FROM events WHERE created_at < now() - make_interval(hours => $1)`,
        [eventMaxAgeHours],
      );
      const upTo = through.rows[0]?.id ? Number(through.rows[0].id) : null;
      if (upTo === null) return { pruned: 0, prunedThrough: null };
      let pruned = 0;
      for (;;) {
        heartbeat({ pruned });
        const n = await withTransaction(pool, async (tx) => {
          // The watermark first, in the same transaction: a client never resumes below a deleted row unwarned.
          await tx.query(
            `INSERT INTO events_pruned (only_row, pruned_through, pruned_at) VALUES (true, $1, now())
             ON CONFLICT (only_row) DO UPDATE
               SET pruned_through = greatest(events_pruned.pruned_through, excluded.pruned_through), pruned_at = now()`,
            [upTo],
          );
          const d = await tx.query(
            `DELETE FROM events WHERE id IN (SELECT id FROM events WHERE id <= $1 ORDER BY id LIMIT $2)`,
            [upTo, EVENT_PRUNE_BATCH],
          );
          return d.rowCount ?? 0;
        });
        pruned += n;
        if (n < EVENT_PRUNE_BATCH) break;
      }
      if (pruned > 0) log.info('events_pruned', { pruned, pruned_through: upTo });
      return { pruned, prunedThrough: upTo };
    },

    async vacuumGraph(): Promise<{ tables: number; ms: number }> {
      const t0 = Date.now();
      const labels = await pool.query<{ name: string }>(
        `SELECT l.name FROM ag_catalog.ag_label l JOIN ag_catalog.ag_graph g ON g.graphid = l.graph
          WHERE g.name = 'service' AND l.name NOT IN ('_ag_label_vertex', '_ag_label_edge')`,
      );
      const tables = [...labels.rows.map((r) => `service."${r.name.replaceAll('"', '""')}"`), ...SYNC_TABLES, 'events'];
      for (const t of tables) {
        heartbeat({ table: t });
        // VACUUM cannot run inside a transaction block: one statement on its own, outside any.
        await pool.query(`VACUUM (ANALYZE) ${t}`);
      }
      return { tables: tables.length, ms: Date.now() - t0 };
    },
  };
}

export type RetentionActivities = ReturnType<typeof createRetentionActivities>;
