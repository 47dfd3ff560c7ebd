/**
 * The `sync_lifecycle` event (docs/decisions.md): the one builder of its payload, written on the caller's
 * transaction client with its NOTIFY, so a status change and its event commit together.
 */
import type { Queryable } from '../db.ts';
import { writeEvent, type EventInput } from '../events.ts';
import type { SyncRunRow, SyncStatus } from './types.ts';

/** What the event says of a run: its ids, (new) status, the status it left, who triggered it, its error. */
export type LifecycleSubject = Pick<SyncRunRow, 'id' | 'source_id' | 'status' | 'triggered_by' | 'error'>;

/**
 * The lifecycle event of `run` having left `previous` (null: the run was created). `extra` is merged last (the
 * completed run's `stats`; `status: 'purged'` for a deleted run).
 */
export function lifecycleEvent(
  run: LifecycleSubject,
  previous: SyncStatus | null,
  extra: Record<string, unknown> = {},
): EventInput {
  return {
    type: 'sync_lifecycle',
    syncId: run.id,
    sourceId: run.source_id,
    payload: {
      sync_id: run.id,
      source_id: run.source_id,
      status: run.status,
      previous_status: previous,
      triggered_by: run.triggered_by,
      ...(run.error ? { error: run.error } : {}),
      ...extra,
    },
  };
}

export async function writeLifecycleEvent(
  db: Queryable,
  run: LifecycleSubject,
  previous: SyncStatus | null,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await writeEvent(db, lifecycleEvent(run, previous, extra));
}
