/**
 * What the components' OpenAPI 3.1 documents share: the error body (lib/errors.ts), the sync run and schedule
 * representations (lib/resources.ts), /health, the list page and its parameters (lib/http.ts), and the small
 * builders every document uses. Each component's document takes these from here, so the gateway's merged document
 * finds one definition of each name (`Error`, `Sync`, `Schedule`, `Health`) and never has to rename one.
 */
import { ERROR_CODES, type ErrorCode } from './errors.ts';
import { PAGE } from './http.ts';
import { SYNC_STATUSES } from './sync-runs/index.ts';

export type Schema = Record<string, unknown>;

export const uuid = { type: 'string', format: 'uuid' } as const;
export const timestamp = { type: 'string', format: 'date-time' } as const;
export const nullableTimestamp = { type: ['string', 'null'], format: 'date-time' } as const;

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const json = (schema: unknown) => ({ 'application/json': { schema } });
/** A response with the error body. */
export const errorResponse = (description: string) => ({ description, content: json(ref('Error')) });

/** A path parameter; `schema` defaults to a UUID. */
export const pathParam = (name: string, schema: unknown = uuid) => ({ name, in: 'path', required: true, schema });
/** A query parameter. */
export const queryParam = (name: string, schema: unknown, description: string, required = false) => ({
  name,
  in: 'query',
  required,
  schema,
  description,
});

/** `limit` and `cursor` of every list (docs/decisions.md: newest first, keyset on created_at, id). */
export const pageParameters = [
  queryParam('limit', { type: 'integer', minimum: PAGE.min, maximum: PAGE.max, default: PAGE.default }, 'Page size.'),
  queryParam('cursor', { type: 'string' }, 'Opaque cursor from next_cursor of the previous page.'),
];
/** A page of a list: `{ items, next_cursor }`, next_cursor null on the last page. */
export const pageOf = (item: string) => ({
  type: 'object',
  required: ['items', 'next_cursor'],
  properties: { items: { type: 'array', items: ref(item) }, next_cursor: { type: ['string', 'null'] } },
});

/** Codes only start-up uses (a process that refuses to start); no response carries them. */
const START_UP_CODES: readonly ErrorCode[] = ['CONFIG_INVALID', 'SCHEMA_MISMATCH'];
/** Every code an error body of any component can carry. */
export const API_ERROR_CODES = ERROR_CODES.filter((c) => !START_UP_CODES.includes(c));

/** The one error body of every component (ServiceError.toBody in lib/errors.ts). */
export const errorSchema: Schema = {
  type: 'object',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      additionalProperties: false,
      properties: {
        code: {
          enum: API_ERROR_CODES,
          description:
            'INVALID_ARGUMENT 400; UNAUTHORIZED, token_expired 401; NOT_FOUND 404; METHOD_NOT_ALLOWED 405; ' +
            'CONFLICT, FAILED_PRECONDITION 409; INTERNAL 500 (the message never leaks internals); ' +
            'UPSTREAM_DISCONNECTED 502; UPSTREAM_UNAVAILABLE 503; UPSTREAM_TIMEOUT, TIMEOUT 504.',
        },
        message: { type: 'string' },
        field: { type: 'string', description: 'The invalid parameter (INVALID_ARGUMENT only).' },
        details: { type: 'object', description: 'More about the error, e.g. active_sync_id on CONFLICT.' },
      },
    },
  },
};

export const healthSchema: Schema = {
  type: 'object',
  required: ['status'],
  properties: { status: { const: 'ok' } },
};

const syncProperties = {
  id: uuid,
  source_id: uuid,
  status: { enum: SYNC_STATUSES },
  config_snapshot: {
    type: 'object',
    description: 'The configuration of the run: the source config with the run’s overrides merged over it.',
  },
  ref: { type: ['string', 'null'] },
  progress_done: { type: 'integer' },
  progress_total: { type: 'integer' },
  progress_meta: { type: 'object' },
  stats: { type: 'object' },
  schedule_id: { type: ['integer', 'null'] },
  triggered_by: { type: ['string', 'null'] },
  error: { type: ['string', 'null'], description: 'Why the run failed or was cancelled.' },
  issues_recorded: { type: 'integer' },
  issues_dropped: { type: 'integer' },
  pinned: {
    type: 'boolean',
    description: 'Pinned by an operator (POST /api/syncs/{id}/pin): retention never cleans or purges it.',
  },
  pinned_at: nullableTimestamp,
  cleaned_at: {
    ...nullableTimestamp,
    description: 'When the sync was cleaned (graph removed); retention purges it RETENTION_PURGE_AFTER_SECONDS later.',
  },
  started_at: nullableTimestamp,
  completed_at: nullableTimestamp,
  created_at: timestamp,
};

/** A sync run (lib/resources.ts `syncToJson`): every field is always present. */
export const syncSchema: Schema = {
  type: 'object',
  required: Object.keys(syncProperties),
  properties: syncProperties,
};

const scheduleProperties = {
  id: { type: 'integer' },
  source_id: uuid,
  interval_minutes: { type: 'integer' },
  config_overrides: { type: 'object' },
  enabled: { type: 'boolean' },
  last_run_at: nullableTimestamp,
  next_run_at: { ...nullableTimestamp, description: 'Null while disabled (paused).' },
  created_at: timestamp,
};

/** A schedule (lib/resources.ts `scheduleToJson`): every field is always present. */
export const scheduleSchema: Schema = {
  type: 'object',
  required: Object.keys(scheduleProperties),
  properties: scheduleProperties,
};

/** The shared component schemas, for a document's `components.schemas`. */
export const sharedSchemas = {
  Error: errorSchema,
  Health: healthSchema,
  Sync: syncSchema,
  Schedule: scheduleSchema,
};
