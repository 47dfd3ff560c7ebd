/**
 * The schedules' watcher: a pause, unpause or deletion made in the Temporal UI or CLI shows in the schedules rows
 * (what GET /api/schedules reads) within one pass, instead of waiting for the next API write. Each pass lists the
 * Temporal schedules once and compares them with the rows:
 * - paused in Temporal while the row says enabled (or the reverse): the operator's action is adopted — `enabled`
 *   and `next_run_at` follow Temporal, with a `schedule_changed` event (`by: "temporal"`, the pause note) and a log
 *   line `schedule_state_adopted`. Before adopting, the schedule is described (the list comes from Temporal's
 *   visibility store and may lag a moment behind an API write), and the row must be as the pass first read it with
 *   no command in flight on it (schedule_intents), so an API command is never undone;
 * - missing in Temporal: reported once (a `schedule_drift` event and a log line), not recreated: the API's repair
 *   (repair.ts) and the next PATCH put it back as the row says;
 * - otherwise `next_run_at` follows Temporal's next action time (no event: the schedule just ticked);
 * - a row made before V49, whose schedule is still `<prefix><id>`, is renamed to the id naming its repository once
 *   Temporal and the row agree (rename.ts); an old-named schedule left beside a renamed row is deleted.
 * It holds no database connection while it calls Temporal.
 */
import type { ScheduleDescription, ScheduleSummary } from '@temporalio/client';
import { withTransaction } from '../../../lib/db.ts';
import { writeEvent } from '../../../lib/events.ts';
import { getSchedule, legacyTemporalId, temporalIdOfRow } from '../../../lib/schedules.ts';
import type { IngestionDeps } from '../deps.ts';
import { renameLegacySchedule } from './rename.ts';
import { deleteTemporalSchedule, describeTemporalSchedule } from './temporal.ts';

interface WatchedRow {
  id: string;
  source_id: string;
  temporal_id: string | null;
  enabled: boolean;
  next_run_at: Date | null;
  busy: boolean;
}

/** What Temporal says of one schedule: paused, its note, its next action. */
interface TemporalState {
  paused: boolean;
  note: string;
  next: Date | null;
}

function stateOf(s: ScheduleSummary | ScheduleDescription): TemporalState {
  const paused = s.state.paused;
  return { paused, note: s.state.note ?? '', next: paused ? null : (s.info.nextActionTimes[0] ?? null) };
}

/** The deployment's Temporal schedules (those with its prefix), by id. */
async function listTemporal(deps: IngestionDeps): Promise<Map<string, TemporalState>> {
  const prefix = deps.settings.scheduleIdPrefix;
  const found = new Map<string, TemporalState>();
  for await (const s of deps.temporal.schedule.list()) {
    if (s.scheduleId.startsWith(prefix)) found.set(s.scheduleId, stateOf(s));
  }
  return found;
}

/** A schedule renamed (rename.ts) whose old-named schedule is still listed: the old one goes. */
async function dropLegacy(deps: IngestionDeps, row: WatchedRow, listed: Map<string, TemporalState>): Promise<void> {
  const legacy = legacyTemporalId(deps.settings.scheduleIdPrefix, row.id);
  if (row.temporal_id === null || row.temporal_id === legacy || !listed.has(legacy)) return;
  await deleteTemporalSchedule(deps.temporal, legacy);
  deps.log.warning('schedule_legacy_deleted', { schedule_id: Number(row.id), temporal_id: legacy });
}

/** Adopts Temporal's paused state into the row (when it is still as `seen`); true when the row changed. */
async function adopt(deps: IngestionDeps, seen: WatchedRow, t: TemporalState): Promise<boolean> {
  const changed = await withTransaction(deps.pool, async (tx) => {
    const row = await getSchedule(tx, seen.id, true);
    if (!row || row.enabled !== seen.enabled) return false;
    const intent = await tx.query(`SELECT 1 FROM schedule_intents WHERE schedule_id = $1`, [seen.id]);
    if ((intent.rowCount ?? 0) > 0) return false;
    await tx.query(`UPDATE schedules SET enabled = $2, next_run_at = $3 WHERE id = $1`, [seen.id, !t.paused, t.next]);
    await writeEvent(tx, {
      type: 'schedule_changed',
      sourceId: row.source_id,
      payload: {
        schedule_id: Number(row.id),
        source_id: row.source_id,
        change: 'updated',
        enabled: !t.paused,
        by: 'temporal',
        note: t.note,
      },
    });
    return true;
  });
  if (changed) {
    deps.log.warning('schedule_state_adopted', {
      schedule_id: Number(seen.id),
      enabled: !t.paused,
      note: t.note,
      was_enabled: seen.enabled,
    });
  }
  return changed;
}

async function reportMissing(deps: IngestionDeps, row: WatchedRow): Promise<void> {
  await writeEvent(deps.pool, {
    type: 'schedule_drift',
    sourceId: row.source_id,
    payload: {
      schedule_id: Number(row.id),
      source_id: row.source_id,
      drift: 'missing_in_temporal',
      enabled: row.enabled,
    },
  });
  deps.log.warning('schedule_drift', { schedule_id: Number(row.id), drift: 'missing_in_temporal' });
}

export interface ScheduleWatch {
  /** One pass; returns how many rows adopted Temporal's state. */
  pass(): Promise<number>;
}

/** A watcher keeps what it reported (a drift is reported once, again only after it was resolved). */
export function scheduleWatch(deps: IngestionDeps): ScheduleWatch {
  const reported = new Set<string>();
  return {
    async pass() {
      const rows = (
        await deps.pool.query<WatchedRow>(
          `SELECT s.id::text AS id, s.source_id, s.temporal_id, s.enabled, s.next_run_at,
                  EXISTS (SELECT 1 FROM schedule_intents i WHERE i.schedule_id = s.id) AS busy
             FROM schedules s ORDER BY s.id`,
        )
      ).rows;
      if (rows.length === 0) return 0;
      const listed = await deps.temporal.connection.withDeadline(
        Date.now() + (deps.settings.temporalCallTimeoutMs ?? 10_000),
        () => listTemporal(deps),
      );
      let adopted = 0;
      for (const row of rows) {
        if (row.busy) continue;
        await dropLegacy(deps, row, listed);
        const temporalId = temporalIdOfRow(deps.settings.scheduleIdPrefix, row);
        let t = listed.get(temporalId);
        if (!t || t.paused === row.enabled) {
          // The list may lag behind a change just made: only what describe says is acted on.
          const d = await describeTemporalSchedule(deps.temporal, temporalId);
          t = d ? stateOf(d) : undefined;
        }
        if (!t) {
          if (!reported.has(row.id)) {
            reported.add(row.id);
            await reportMissing(deps, row);
          }
          continue;
        }
        reported.delete(row.id);
        if (t.paused === row.enabled) {
          if (await adopt(deps, row, t)) adopted++;
        } else if (row.temporal_id === null) {
          await renameLegacySchedule(deps, row.id, t.note);
        } else if (row.enabled && t.next?.getTime() !== row.next_run_at?.getTime()) {
          await deps.pool.query(
            `UPDATE schedules s SET next_run_at = $2
              WHERE id = $1 AND enabled AND NOT EXISTS (SELECT 1 FROM schedule_intents i WHERE i.schedule_id = s.id)`,
            [row.id, t.next],
          );
        }
      }
      return adopted;
    },
  };
}
