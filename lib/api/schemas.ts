/**
 * The representations every component shares, as zod schemas: the error body (lib/errors.ts), /health, the sync
 * run and the schedule (lib/resources.ts builds them from rows), and the page of a list. Each is a named component
 * (`.meta({ id })`): every document that uses one writes the same definition under the same name, so the gateway's
 * merged document finds one of each. Their types (`Sync`, `Schedule`, `Page<T>`) are what clients read.
 */
import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../errors.ts';
import { SYNC_STATUSES } from '../sync-runs/types.ts';

export const uuid = () => z.string().meta({ format: 'uuid' });
export const timestamp = () => z.string().meta({ format: 'date-time' });
export const nullableTimestamp = (description?: string) =>
  z
    .string()
    .nullable()
    .meta({ format: 'date-time', ...(description ? { description } : {}) });
/** A JSON object whose keys the service does not fix. */
export const object = (description?: string) =>
  description ? z.record(z.string(), z.unknown()).describe(description) : z.record(z.string(), z.unknown());

/** Codes only start-up uses (a process that refuses to start); no response carries them. */
const START_UP_CODES: readonly ErrorCode[] = ['CONFIG_INVALID', 'SCHEMA_MISMATCH'];
/** Every code an error body of any component can carry. */
export const API_ERROR_CODES = ERROR_CODES.filter((c) => !START_UP_CODES.includes(c));

/** The one error body of every component (ServiceError.toBody in lib/errors.ts). */
export const ErrorBody = z
  .strictObject({
    error: z.strictObject({
      code: z
        .enum(API_ERROR_CODES as [ErrorCode, ...ErrorCode[]])
        .describe(
          'INVALID_ARGUMENT 400; UNAUTHORIZED, token_expired 401; NOT_FOUND 404; METHOD_NOT_ALLOWED 405; ' +
            'CONFLICT, FAILED_PRECONDITION 409; INTERNAL 500 (the message never leaks internals); ' +
            'UPSTREAM_DISCONNECTED 502; UPSTREAM_UNAVAILABLE 503; UPSTREAM_TIMEOUT, TIMEOUT 504.',
        ),
      message: z.string(),
      field: z.string().optional().describe('The invalid parameter (INVALID_ARGUMENT only).'),
      details: object('More about the error, e.g. active_sync_id on CONFLICT.').optional(),
    }),
  })
  .meta({ id: 'Error' });
export type ErrorBody = z.infer<typeof ErrorBody>;

export const Health = z.object({ status: z.literal('ok') }).meta({ id: 'Health' });

/** A sync run (lib/resources.ts `syncToJson`): every field is always present, in this order. */
export const Sync = z
  .object({
    id: uuid(),
    source_id: uuid(),
    status: z.enum(SYNC_STATUSES),
    config_snapshot: object('The configuration of the run: the source config with the run’s overrides merged over it.'),
    ref: z.string().nullable(),
    progress_done: z.int(),
    progress_total: z.int(),
    progress_meta: z
      .looseObject({ phase: z.string().optional().describe('The phase the run is in (lib/sync-runs/phases.ts).') })
      .describe('What the progress counts: the current phase and its own figures.'),
    stats: object(),
    schedule_id: z.int().nullable(),
    triggered_by: z.string().nullable(),
    error: z.string().nullable().describe('Why the run failed or was cancelled.'),
    issues_recorded: z.int(),
    issues_dropped: z.int(),
    pinned: z
      .boolean()
      .describe('Pinned by an operator (POST /api/syncs/{id}/pin): retention never cleans or purges it.'),
    pinned_at: nullableTimestamp(),
    cleaned_at: nullableTimestamp(
      'When the sync was cleaned (graph removed); retention purges it RETENTION_PURGE_AFTER_SECONDS later.',
    ),
    started_at: nullableTimestamp(),
    completed_at: nullableTimestamp(),
    created_at: timestamp(),
  })
  .meta({ id: 'Sync' });
export type Sync = z.infer<typeof Sync>;

/** A schedule (lib/resources.ts `scheduleToJson`): every field is always present. */
export const Schedule = z
  .object({
    id: z.int(),
    source_id: uuid(),
    interval_minutes: z.int(),
    config_overrides: object(),
    enabled: z.boolean(),
    last_run_at: nullableTimestamp(),
    next_run_at: nullableTimestamp('Null while disabled (paused).'),
    created_at: timestamp(),
  })
  .meta({ id: 'Schedule' });
export type Schedule = z.infer<typeof Schedule>;

/** A page of a list: `{ items, next_cursor }`, next_cursor null on the last page. */
export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), next_cursor: z.string().nullable() });
export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/** The shared components, for a document's `components.schemas`. */
export const SHARED = [ErrorBody, Health, Sync, Schedule] as const;
