/**
 * What GET /api/events carries: each frame's data is an event row (gateway/events/store.ts builds it), its payload
 * by type. The sync payloads are written by lib/sync-runs/lifecycle.ts (`sync_lifecycle`) and
 * activities/sync/helpers/progress.ts (`sync_progress`); clients (the CLI's follow, the explorer, the tests) read them with
 * these types. The gateway's document lists the schemas as components.
 */
import { z } from 'zod';
import { SYNC_STATUSES } from '../sync-runs/types.ts';
import { object, timestamp, uuid } from './schemas.ts';

export const EventRow = z
  .object({
    id: z.int().describe('The row id, also the frame id (the resume point).'),
    type: z.string().describe('sync_lifecycle, sync_progress, source_changed, schedule_changed, ...'),
    sync_id: uuid().nullable(),
    source_id: uuid().nullable(),
    payload: object('By type: SyncLifecycle, SyncProgress, ...'),
    created_at: timestamp(),
  })
  .meta({ id: 'EventRow' });
export type EventRow = z.infer<typeof EventRow>;

export const SyncLifecycle = z
  .looseObject({
    sync_id: uuid(),
    source_id: uuid(),
    status: z.enum([...SYNC_STATUSES, 'purged']),
    previous_status: z.enum(SYNC_STATUSES).nullable().describe('null: the run was just created.'),
    triggered_by: z.string().nullable(),
    error: z.string().optional(),
  })
  .meta({ id: 'SyncLifecycle' });
export type SyncLifecycle = z.infer<typeof SyncLifecycle>;

export const SyncProgress = z
  .object({
    sync_id: uuid(),
    source_id: uuid(),
    phase: z.string(),
    progress_done: z.int(),
    progress_total: z.int(),
  })
  .meta({ id: 'SyncProgress' });
export type SyncProgress = z.infer<typeof SyncProgress>;

/** The event stream's error frame (`event: error`), e.g. `{ "code": "token_expired" }`. */
export const StreamError = z.object({ code: z.string() }).meta({ id: 'StreamError' });

export const EVENT_SCHEMAS = [EventRow, SyncLifecycle, SyncProgress, StreamError] as const;
