/**
 * Repair of a schedule command that did not finish: its intent is abandoned (the command could not undo its Temporal
 * change) or older than staleIntentMs (its process died between the phases). The schedules row is the last confirmed
 * state, so the repair puts Temporal back as the row says — an interrupted create is undone (Temporal schedule and row
 * deleted), an interrupted update or delete leaves the Temporal schedule as the row describes it (recreated when
 * missing) — and deletes the intent. Like the commands, it holds no database connection while it calls Temporal.
 * Run by the next command on the schedule and by the ingestion component's periodic reconciler.
 */
import { withTransaction } from '../../../lib/db.ts';
import type { IngestionDeps } from '../deps.ts';
import { getSource, sourceName } from '../../../lib/sources.ts';
import { temporalUnavailable } from '../temporal-gate.ts';
import {
  abandonIntent,
  dropCreated,
  dropIntent,
  getIntent,
  staleIntentMs,
  staleIntents,
  takeOverIntent,
} from './intents.ts';
import { getSchedule, setNextRunAt, temporalIdOfRow } from '../../../lib/schedules.ts';
import { deleteTemporalSchedule, scheduleSpec, syncTemporalSchedule } from './temporal.ts';

/** Repairs the schedule's intent when it is stale; true when one was repaired. Throws 503 when Temporal fails. */
export async function repairSchedule(deps: IngestionDeps, id: string): Promise<boolean> {
  const { pool, temporal, settings, log } = deps;
  const claimed = await withTransaction(pool, async (tx) => {
    const row = await getSchedule(tx, id, true);
    if (!row) return undefined;
    const intent = await getIntent(tx, id, staleIntentMs(settings));
    if (!intent?.stale) return undefined;
    const source = await getSource(tx, row.source_id);
    const token = await takeOverIntent(tx, id);
    return { row, operation: intent.operation, name: source ? sourceName(source) : row.source_id, token };
  });
  if (!claimed) return false;
  const { row, operation, name, token } = claimed;
  let next: Date | null = null;
  try {
    await temporal.connection.withDeadline(Date.now() + (settings.temporalCallTimeoutMs ?? 10_000), async () => {
      if (operation === 'create')
        await deleteTemporalSchedule(temporal, temporalIdOfRow(settings.scheduleIdPrefix, row));
      else next = await syncTemporalSchedule(temporal, scheduleSpec(settings, row, name));
    });
  } catch (err) {
    await abandonIntent(pool, id, token).catch(() => undefined);
    log.warning('schedule_repair_failed', { schedule_id: Number(id), operation, error: err });
    throw temporalUnavailable(err, 'an earlier change of this schedule is still being repaired');
  }
  await withTransaction(pool, async (tx) => {
    if (operation === 'create') await dropCreated(tx, id, token);
    else if (await dropIntent(tx, id, token)) await setNextRunAt(tx, id, next);
  });
  log.warning('schedule_repaired', { schedule_id: Number(id), interrupted: operation });
  return true;
}

/** One reconciler pass over every stale intent; returns how many were repaired. */
export async function repairStaleSchedules(deps: IngestionDeps): Promise<number> {
  let repaired = 0;
  for (const id of await staleIntents(deps.pool, staleIntentMs(deps.settings))) {
    try {
      if (await repairSchedule(deps, id)) repaired++;
    } catch (err) {
      deps.log.warning('schedule_repair_failed', { schedule_id: Number(id), error: err });
    }
  }
  return repaired;
}
