/**
 * Schedules made before V49 are `<prefix><id>` in Temporal; every newer one is named after its repository
 * (`<prefix><owner>-<name>-<id>`, lib/schedules.ts temporalScheduleIdOf). The watcher renames the old ones, as a
 * schedule command makes its changes (commands.ts), with no connection held while Temporal is called:
 *  1. a short transaction locks the row (skipped while a command is in flight on it), records the new id in the row
 *     (temporal_id) and an update intent, and commits;
 *  2. the named schedule is created as the row says (keeping the paused state's note) and the old one deleted;
 *  3. the intent is dropped and next_run_at set from the new schedule.
 * When phase 2 fails the intent is abandoned: the repair (repair.ts) makes the named schedule as the row says, and
 * the watcher deletes an old-named schedule it finds beside a renamed row. Temporal has no rename: for the moment
 * between the create and the delete both exist; overlap policy SKIP and the trigger's one-active-run rule keep a
 * tick of each from starting two syncs.
 */
import { withTransaction } from '../../../lib/db.ts';
import {
  legacyTemporalId,
  getSchedule,
  setNextRunAt,
  setTemporalId,
  temporalScheduleIdOf,
} from '../../../lib/schedules.ts';
import { getSource, sourceName } from '../../../lib/sources.ts';
import type { IngestionDeps } from '../deps.ts';
import { abandonIntent, dropIntent, getIntent, putIntent, staleIntentMs } from './intents.ts';
import { createTemporalSchedule, deleteTemporalSchedule, scheduleSpec } from './temporal.ts';

/** Renames the row's old-named Temporal schedule; true when it was renamed. `note`: the old schedule's pause note. */
export async function renameLegacySchedule(deps: IngestionDeps, id: string, note?: string): Promise<boolean> {
  const { pool, temporal, settings, log } = deps;
  const prefix = settings.scheduleIdPrefix;
  const claimed = await withTransaction(pool, async (tx) => {
    const row = await getSchedule(tx, id, true);
    if (!row || row.temporal_id !== null) return undefined;
    if (await getIntent(tx, id, staleIntentMs(settings))) return undefined;
    const source = await getSource(tx, row.source_id);
    if (!source) return undefined;
    const name = sourceName(source);
    const renamed = await setTemporalId(tx, id, temporalScheduleIdOf(prefix, name, id));
    return { row: renamed, name, token: await putIntent(tx, id, 'update') };
  });
  if (!claimed) return false;
  const { row, name, token } = claimed;
  const from = legacyTemporalId(prefix, id);
  let next: Date | null = null;
  try {
    await temporal.connection.withDeadline(Date.now() + (settings.temporalCallTimeoutMs ?? 10_000), async () => {
      next = await createTemporalSchedule(temporal, {
        ...scheduleSpec(settings, row, name),
        ...(row.enabled || !note ? {} : { note }),
      });
      await deleteTemporalSchedule(temporal, from);
    });
  } catch (err) {
    await abandonIntent(pool, id, token).catch(() => undefined);
    log.warning('schedule_rename_failed', { schedule_id: Number(id), from, to: row.temporal_id, error: err });
    return false;
  }
  await withTransaction(pool, async (tx) => {
    if (await dropIntent(tx, id, token)) await setNextRunAt(tx, id, next);
  });
  log.info('schedule_renamed', { schedule_id: Number(id), from, to: row.temporal_id });
  return true;
}
