/**
 * Schedule writes. The row, its schedule_changed event and the Temporal schedule change together: the Temporal call
 * is made inside the row's transaction, so a Temporal failure rolls the row back (503) and a failed commit undoes
 * the Temporal change (best effort, logged).
 */
import { isUniqueViolation, withTransaction } from '../../../lib/db.ts';
import { ConflictError, NotFoundError, UpstreamError } from '../../../lib/errors.ts';
import type { ScheduleRow } from '../../../lib/resources.ts';
import type { IngestionDeps } from '../deps.ts';
import { getSource, sourceName } from '../sources.ts';
import {
  deleteScheduleRow,
  findSchedule,
  getSchedule,
  insertSchedule,
  SCHEDULE_UNIQUE,
  setNextRunAt,
  updateSchedule,
  writeScheduleEvent,
  type ScheduleChanges,
} from './rows.ts';
import {
  createTemporalSchedule,
  deleteTemporalSchedule,
  syncTemporalSchedule,
  type TemporalScheduleSpec,
} from './temporal.ts';

export interface CreateScheduleInput {
  sourceId: string;
  intervalMinutes: number;
  configOverrides: Record<string, unknown>;
  enabled: boolean;
}

/** Marks errors of the Temporal service so the caller maps them to 503 (database errors stay 500). */
class TemporalCallError extends Error {}

async function temporalCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new TemporalCallError(err instanceof Error ? err.message : String(err), { cause: err });
  }
}

function upstream(err: unknown): unknown {
  if (err instanceof TemporalCallError) {
    return new UpstreamError('UPSTREAM_UNAVAILABLE', 'the workflow service is unavailable; nothing was changed', {
      cause: err.cause,
    });
  }
  return err;
}

function spec(deps: IngestionDeps, row: ScheduleRow, name: string): TemporalScheduleSpec {
  return {
    scheduleId: row.id,
    sourceId: row.source_id,
    sourceName: name,
    intervalMinutes: row.interval_minutes,
    enabled: row.enabled,
    taskQueue: deps.settings.taskQueue,
    prefix: deps.settings.scheduleIdPrefix,
  };
}

async function duplicate(deps: IngestionDeps, sourceId: string, interval: number): Promise<ConflictError> {
  const existing = await findSchedule(deps.pool, sourceId, interval);
  return new ConflictError(
    `source ${sourceId} already has a schedule every ${interval} minutes`,
    existing ? { schedule_id: Number(existing.id) } : undefined,
  );
}

export async function createSchedule(deps: IngestionDeps, input: CreateScheduleInput): Promise<ScheduleRow> {
  const { pool, temporal, log } = deps;
  let created: TemporalScheduleSpec | undefined;
  try {
    const row = await withTransaction(pool, async (tx) => {
      const source = await getSource(tx, input.sourceId, true);
      if (!source) throw new NotFoundError('source', input.sourceId);
      const inserted = await insertSchedule(tx, input);
      const s = spec(deps, inserted, sourceName(source));
      const next = await temporalCall(() => createTemporalSchedule(temporal, s));
      created = s;
      const withNext = (await setNextRunAt(tx, inserted.id, next)) ?? inserted;
      await writeScheduleEvent(tx, withNext, 'created');
      return withNext;
    });
    log.info('schedule_created', {
      schedule_id: Number(row.id),
      source_id: row.source_id,
      interval_minutes: row.interval_minutes,
    });
    return row;
  } catch (err) {
    if (created) {
      const s = created;
      await deleteTemporalSchedule(temporal, s.prefix, s.scheduleId).catch((undo: unknown) =>
        log.error('schedule_undo_failed', { schedule_id: Number(s.scheduleId), error: undo }),
      );
    }
    if (isUniqueViolation(err, SCHEDULE_UNIQUE)) throw await duplicate(deps, input.sourceId, input.intervalMinutes);
    throw upstream(err);
  }
}

export async function patchSchedule(deps: IngestionDeps, id: string, changes: ScheduleChanges): Promise<ScheduleRow> {
  const { pool, temporal, log } = deps;
  let undo: TemporalScheduleSpec | undefined;
  let sourceId = '';
  try {
    const row = await withTransaction(pool, async (tx) => {
      const before = await getSchedule(tx, id, true);
      if (!before) throw new NotFoundError('schedule', id);
      sourceId = before.source_id;
      const source = await getSource(tx, before.source_id);
      if (!source) throw new NotFoundError('source', before.source_id);
      const after = await updateSchedule(tx, id, changes);
      const name = sourceName(source);
      const next = await temporalCall(() => syncTemporalSchedule(temporal, spec(deps, after, name)));
      undo = spec(deps, before, name);
      const withNext = (await setNextRunAt(tx, id, next)) ?? after;
      await writeScheduleEvent(tx, withNext, 'updated');
      return withNext;
    });
    log.info('schedule_updated', {
      schedule_id: Number(id),
      enabled: row.enabled,
      interval_minutes: row.interval_minutes,
    });
    return row;
  } catch (err) {
    if (undo) {
      const s = undo;
      await syncTemporalSchedule(temporal, s).catch((e: unknown) =>
        log.error('schedule_undo_failed', { schedule_id: Number(id), error: e }),
      );
    }
    if (isUniqueViolation(err, SCHEDULE_UNIQUE) && changes.intervalMinutes !== undefined) {
      throw await duplicate(deps, sourceId, changes.intervalMinutes);
    }
    throw upstream(err);
  }
}

export async function deleteSchedule(deps: IngestionDeps, id: string): Promise<void> {
  const { pool, temporal, log, settings } = deps;
  try {
    await withTransaction(pool, async (tx) => {
      const row = await getSchedule(tx, id, true);
      if (!row) throw new NotFoundError('schedule', id);
      await temporalCall(() => deleteTemporalSchedule(temporal, settings.scheduleIdPrefix, id));
      await deleteScheduleRow(tx, id);
      await writeScheduleEvent(tx, row, 'deleted');
    });
  } catch (err) {
    throw upstream(err);
  }
  log.info('schedule_deleted', { schedule_id: Number(id) });
}
