/**
 * Schedule writes, in two phases so that no database connection is held while Temporal is called:
 *  1. a short transaction locks the row, records the command's intent (schedule_intents: one at a time per schedule;
 *     a create inserts its row here) and commits;
 *  2. Temporal is called (create / update / delete the Temporal schedule) with no connection held;
 *  3. a short transaction deletes the intent and applies the change to the row with its schedule_changed event.
 * The row is the last confirmed state: reads never see a change Temporal refused. When Temporal fails in phase 2 the
 * command undoes it (puts the Temporal schedule back as the row says; a create deletes its row) and answers 503 with
 * Retry-After; when the undo fails too, the intent is marked abandoned and repaired (repair.ts) by the next command on
 * the schedule or the periodic reconciler. A second command on a schedule with an intent in flight waits for it,
 * connection-free, up to the commands' bound, then answers 503. Before all this, requireTemporal answers 503 at once
 * when Temporal does not answer (nothing is written).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { isUniqueViolation, withTransaction, type PoolClient } from '../../../lib/db.ts';
import { ConflictError, NotFoundError, UnavailableError } from '../../../lib/errors.ts';
import type { ScheduleRow } from '../../../lib/resources.ts';
import type { IngestionDeps } from '../deps.ts';
import { getSource, sourceName } from '../../../lib/sources.ts';
import { DEFAULT_TEMPORAL_CONNECT_TIMEOUT_MS, requireTemporal, temporalUnavailable } from '../temporal-gate.ts';
import { abandonIntent, dropCreated, dropIntent, getIntent, putIntent, staleIntentMs } from './intents.ts';
import { repairSchedule } from './repair.ts';
import {
  deleteScheduleRow,
  findSchedule,
  getSchedule,
  insertSchedule,
  SCHEDULE_UNIQUE,
  setNextRunAt,
  temporalIdOfRow,
  updateSchedule,
  writeScheduleEvent,
  type ScheduleChanges,
} from '../../../lib/schedules.ts';
import { createTemporalSchedule, deleteTemporalSchedule, scheduleSpec, syncTemporalSchedule } from './temporal.ts';

export interface CreateScheduleInput {
  sourceId: string;
  intervalMinutes: number;
  configOverrides: Record<string, unknown>;
  enabled: boolean;
}

/** A command waiting for another one on the same schedule polls this often (no connection held meanwhile). */
const BUSY_POLL_MS = 100;

/** What phase 1 committed: the row as confirmed before the command, its source's name and the intent's token. */
interface Claimed {
  row: ScheduleRow;
  name: string;
  token: string;
}

type Attempt = { claimed: Claimed } | { busy: string };

function connectTimeoutMs(deps: IngestionDeps): number {
  return deps.settings.temporalConnectTimeoutMs ?? DEFAULT_TEMPORAL_CONNECT_TIMEOUT_MS;
}

/** How long a command waits for another one in flight on the same schedule: that one's Temporal call and undo. */
function busyWaitMs(deps: IngestionDeps): number {
  return (deps.settings.temporalCallTimeoutMs ?? 10_000) + connectTimeoutMs(deps);
}

/**
 * Runs phase 1 until it claims the schedule: an intent in flight is waited for, a stale one is repaired first.
 * `attempt` returns the claim, or the id of the schedule whose intent is in the way.
 */
async function claim(deps: IngestionDeps, attempt: (tx: PoolClient) => Promise<Attempt>): Promise<Claimed> {
  const started = Date.now();
  for (;;) {
    const r = await withTransaction(deps.pool, attempt);
    if ('claimed' in r) return r.claimed;
    if (await repairSchedule(deps, r.busy)) continue;
    if (Date.now() - started > busyWaitMs(deps)) {
      throw new UnavailableError(`another change of schedule ${r.busy} is in progress; retry`, 1);
    }
    await sleep(BUSY_POLL_MS);
  }
}

/** Phase 1 of update and delete: the row locked, no intent in flight, then ours. */
function claimExisting(
  deps: IngestionDeps,
  id: string,
  operation: 'update' | 'delete',
  check?: (tx: PoolClient, row: ScheduleRow) => Promise<void>,
): Promise<Claimed> {
  return claim(deps, async (tx) => {
    const row = await getSchedule(tx, id, true);
    if (!row) throw new NotFoundError('schedule', id);
    if (await getIntent(tx, id, staleIntentMs(deps.settings))) return { busy: id };
    const source = await getSource(tx, row.source_id);
    if (!source) throw new NotFoundError('source', row.source_id);
    await check?.(tx, row);
    return { claimed: { row, name: sourceName(source), token: await putIntent(tx, id, operation) } };
  });
}

/**
 * Undoes a phase 2 that failed: Temporal back as the row says (`restore`, under a short deadline of its own), then
 * `finish` (drop the intent; a create drops its row). When that fails the intent is marked abandoned for a repair.
 */
async function undo(
  deps: IngestionDeps,
  id: string,
  token: string,
  restore: () => Promise<unknown>,
  finish: (tx: PoolClient) => Promise<unknown>,
): Promise<void> {
  try {
    await deps.temporal.connection.withDeadline(Date.now() + connectTimeoutMs(deps), restore);
    await withTransaction(deps.pool, finish);
  } catch (err) {
    deps.log.error('schedule_undo_failed', { schedule_id: Number(id), error: err });
    await abandonIntent(deps.pool, id, token).catch(() => undefined);
  }
}

/** Phase 3 found its intent gone: the row went with its source, or a repair took the intent over. */
function interrupted(id: string): UnavailableError {
  return new UnavailableError(`the change of schedule ${id} was interrupted; nothing was changed`, 1);
}

async function duplicate(deps: IngestionDeps, sourceId: string, interval: number): Promise<ConflictError> {
  const existing = await findSchedule(deps.pool, sourceId, interval);
  return duplicateOf(sourceId, interval, existing);
}

function duplicateOf(sourceId: string, interval: number, existing: ScheduleRow | undefined): ConflictError {
  return new ConflictError(
    `source ${sourceId} already has a schedule every ${interval} minutes`,
    existing ? { schedule_id: Number(existing.id) } : undefined,
  );
}

export async function createSchedule(deps: IngestionDeps, input: CreateScheduleInput): Promise<ScheduleRow> {
  const { pool, temporal, log, settings } = deps;
  await requireTemporal(deps);
  const { row, name, token } = await claim(deps, async (tx) => {
    const source = await getSource(tx, input.sourceId, true);
    if (!source) throw new NotFoundError('source', input.sourceId);
    const taken = await findSchedule(tx, input.sourceId, input.intervalMinutes);
    if (taken) {
      // A create of the same schedule still in flight may yet be undone: wait for it; a confirmed one is a 409.
      if (await getIntent(tx, taken.id, staleIntentMs(settings))) return { busy: taken.id };
      throw duplicateOf(input.sourceId, input.intervalMinutes, taken);
    }
    const name = sourceName(source);
    const inserted = await insertSchedule(tx, input, { prefix: settings.scheduleIdPrefix, sourceName: name });
    return { claimed: { row: inserted, name, token: await putIntent(tx, inserted.id, 'create') } };
  }).catch(async (err: unknown) => {
    // Two creates raced past the lookup: the loser is told as the lookup would have.
    if (isUniqueViolation(err, SCHEDULE_UNIQUE)) throw await duplicate(deps, input.sourceId, input.intervalMinutes);
    throw err;
  });
  const temporalId = temporalIdOfRow(settings.scheduleIdPrefix, row);
  const unmake = (): Promise<void> =>
    undo(
      deps,
      row.id,
      token,
      () => deleteTemporalSchedule(temporal, temporalId),
      (tx) => dropCreated(tx, row.id, token),
    );
  let next: Date | null;
  try {
    next = await createTemporalSchedule(temporal, scheduleSpec(settings, row, name));
  } catch (err) {
    await unmake();
    throw temporalUnavailable(err);
  }
  let confirmed: ScheduleRow | undefined;
  try {
    confirmed = await withTransaction(pool, async (tx) => {
      if (!(await dropIntent(tx, row.id, token))) return undefined;
      const withNext = (await setNextRunAt(tx, row.id, next)) ?? row;
      await writeScheduleEvent(tx, withNext, 'created');
      return withNext;
    });
  } catch (err) {
    await unmake();
    throw err;
  }
  if (!confirmed) {
    await deleteTemporalSchedule(temporal, temporalId).catch(() => undefined);
    throw interrupted(row.id);
  }
  log.info('schedule_created', {
    schedule_id: Number(confirmed.id),
    source_id: confirmed.source_id,
    interval_minutes: confirmed.interval_minutes,
  });
  return confirmed;
}

export async function patchSchedule(deps: IngestionDeps, id: string, changes: ScheduleChanges): Promise<ScheduleRow> {
  const { pool, temporal, log, settings } = deps;
  await requireTemporal(deps);
  const {
    row: before,
    name,
    token,
  } = await claimExisting(deps, id, 'update', async (tx, row) => {
    const interval = changes.intervalMinutes;
    if (interval === undefined || interval === row.interval_minutes) return;
    const taken = await findSchedule(tx, row.source_id, interval);
    if (taken) throw duplicateOf(row.source_id, interval, taken);
  });
  const after: ScheduleRow = {
    ...before,
    enabled: changes.enabled ?? before.enabled,
    interval_minutes: changes.intervalMinutes ?? before.interval_minutes,
  };
  const restore = (): Promise<void> =>
    undo(
      deps,
      id,
      token,
      () => syncTemporalSchedule(temporal, scheduleSpec(settings, before, name)),
      (tx) => dropIntent(tx, id, token),
    );
  let next: Date | null;
  try {
    next = await syncTemporalSchedule(temporal, scheduleSpec(settings, after, name));
  } catch (err) {
    await restore();
    throw temporalUnavailable(err);
  }
  let row: ScheduleRow | undefined;
  try {
    row = await withTransaction(pool, async (tx) => {
      if (!(await dropIntent(tx, id, token))) return undefined;
      await updateSchedule(tx, id, changes);
      const withNext = await setNextRunAt(tx, id, next);
      if (!withNext) throw new Error(`schedule ${id} vanished under its intent`);
      await writeScheduleEvent(tx, withNext, 'updated');
      return withNext;
    });
  } catch (err) {
    await restore();
    if (isUniqueViolation(err, SCHEDULE_UNIQUE) && changes.intervalMinutes !== undefined) {
      throw await duplicate(deps, before.source_id, changes.intervalMinutes);
    }
    throw err;
  }
  if (!row) {
    if (!(await getSchedule(pool, id))) {
      await deleteTemporalSchedule(temporal, temporalIdOfRow(settings.scheduleIdPrefix, before)).catch(() => undefined);
      throw new NotFoundError('schedule', id);
    }
    throw interrupted(id);
  }
  log.info('schedule_updated', {
    schedule_id: Number(id),
    enabled: row.enabled,
    interval_minutes: row.interval_minutes,
  });
  return row;
}

export async function deleteSchedule(deps: IngestionDeps, id: string): Promise<void> {
  const { pool, temporal, log, settings } = deps;
  await requireTemporal(deps);
  const { row, name, token } = await claimExisting(deps, id, 'delete');
  const restore = (): Promise<void> =>
    undo(
      deps,
      id,
      token,
      () => syncTemporalSchedule(temporal, scheduleSpec(settings, row, name)),
      (tx) => dropIntent(tx, id, token),
    );
  try {
    await deleteTemporalSchedule(temporal, temporalIdOfRow(settings.scheduleIdPrefix, row));
  } catch (err) {
    await restore();
    throw temporalUnavailable(err);
  }
  let done: boolean;
  try {
    done = await withTransaction(pool, async (tx) => {
      if (!(await dropIntent(tx, id, token))) return false;
      await deleteScheduleRow(tx, id);
      await writeScheduleEvent(tx, row, 'deleted');
      return true;
    });
  } catch (err) {
    await restore();
    throw err;
  }
  // The intent gone with the row (its source was deleted) is a delete done; a repair that took it over is not.
  if (!done && (await getSchedule(pool, id))) throw interrupted(id);
  log.info('schedule_deleted', { schedule_id: Number(id) });
}
