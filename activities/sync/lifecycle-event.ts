/** The sync_lifecycle event (docs/decisions.md): written on the caller's transaction client with its NOTIFY. */
import type { Queryable } from '../../lib/db.ts';
import { writeEvent } from '../../lib/events.ts';

export interface LifecycleChange {
  syncId: string;
  sourceId: string;
  status: string;
  previousStatus: string;
  triggeredBy: string | null;
  error?: string | null;
  stats?: Record<string, unknown>;
}

export function writeLifecycleEvent(db: Queryable, c: LifecycleChange): Promise<string> {
  return writeEvent(db, {
    type: 'sync_lifecycle',
    syncId: c.syncId,
    sourceId: c.sourceId,
    payload: {
      sync_id: c.syncId,
      source_id: c.sourceId,
      status: c.status,
      previous_status: c.previousStatus,
      triggered_by: c.triggeredBy,
      ...(c.error ? { error: c.error } : {}),
      ...(c.stats ? { stats: c.stats } : {}),
    },
  });
}
