/**
 * The schedule routes, declared once (lib/api/route.ts): the ingestion component's writes (create, patch, delete)
 * and the graph component's list.
 */
import { z } from 'zod';
import { bool, int, page, path, query, uuid } from '../fields.ts';
import { route } from '../route.ts';
import { errorReply, INVALID_FIELD, INVALID_PARAMETER, NOT_FOUND_RUN } from './errors.ts';
import { Schedule, pageOf } from '../schemas.ts';
import { configOverrides } from './syncs.ts';

/** interval_minutes: at least 1 minute, at most one year. */
export const INTERVAL = { min: 1, max: 525_600 } as const;

const unavailable = errorReply(
  'UPSTREAM_UNAVAILABLE (with Retry-After): the Temporal service could not be reached; nothing was changed. ' +
    'UNAVAILABLE (with Retry-After): another change of this schedule is still in progress.',
);
const tags = ['schedules'];
const scheduleParams = { schedule_id: path.bigint() };

export const CreateSchedule = z
  .strictObject({
    source_id: uuid(),
    interval_minutes: int(INTERVAL),
    config_overrides: configOverrides('Merged over the source config when a tick creates a run.').meta({
      default: {},
    }),
    enabled: bool().meta({ default: true }),
  })
  .meta({ id: 'CreateSchedule' });
export type CreateSchedule = z.input<typeof CreateSchedule>;

export const PatchSchedule = z
  .strictObject({
    enabled: bool('false pauses the Temporal schedule; true resumes it.'),
    interval_minutes: int(INTERVAL).optional(),
    config_overrides: configOverrides('Replaces the schedule’s overrides.'),
  })
  .refine((b) => b.enabled !== undefined || b.interval_minutes !== undefined || b.config_overrides !== undefined, {
    error: 'must set at least one of enabled, interval_minutes, config_overrides',
  })
  .meta({ id: 'PatchSchedule', minProperties: 1 });
export type PatchSchedule = z.input<typeof PatchSchedule>;

export const createSchedule = route({
  method: 'POST',
  path: '/api/schedules',
  tags,
  summary: 'Create a schedule',
  description:
    'Creates the row and the Temporal schedule `sched-<owner>-<name>-<id>` (every interval_minutes minutes, ' +
    'aligned to the ' +
    'Unix epoch, overlap policy skip, paused when enabled=false). Each tick runs `scheduledSyncWorkflow`, ' +
    'which creates a run (triggered_by `schedule:<id>`, schedule_id set, config_overrides merged over the ' +
    'source config, ref = default_branch) and starts its sync workflow, or skips the tick (event ' +
    '`schedule_run_skipped`) when the source has an active sync or is disabled. next_run_at comes from ' +
    'Temporal; last_run_at is set when a scheduled run starts.',
  body: { schema: CreateSchedule, required: true },
  success: { status: 201, description: 'The schedule.', schema: Schedule },
  responses: {
    400: INVALID_FIELD,
    404: NOT_FOUND_RUN,
    409: errorReply('CONFLICT: the source already has a schedule with this interval; `details.schedule_id`.'),
    503: unavailable,
  },
});

export const patchSchedule = route({
  method: 'PATCH',
  path: '/api/schedules/{schedule_id}',
  tags,
  summary: 'Enable/disable (pause) a schedule, or change its interval or overrides',
  params: scheduleParams,
  body: { schema: PatchSchedule, required: true },
  success: { status: 200, description: 'The schedule.', schema: Schedule },
  responses: {
    400: INVALID_FIELD,
    404: NOT_FOUND_RUN,
    409: errorReply('CONFLICT: another schedule of the source has this interval.'),
    503: unavailable,
  },
});

export const deleteSchedule = route({
  method: 'DELETE',
  path: '/api/schedules/{schedule_id}',
  tags,
  summary: 'Delete a schedule and its Temporal schedule',
  description: 'Past runs keep their data; their schedule_id becomes null.',
  params: scheduleParams,
  success: { status: 204, description: 'Deleted.' },
  responses: { 400: INVALID_FIELD, 404: NOT_FOUND_RUN, 503: unavailable },
});

/** The schedule writes the ingestion component serves. */
export const SCHEDULE_COMMANDS = [createSchedule, patchSchedule, deleteSchedule] as const;

export const listSchedules = route({
  method: 'GET',
  path: '/api/schedules',
  summary: 'List schedules',
  query: { source_id: query.uuid('Only schedules of this source.'), ...page('bigint') },
  success: { status: 200, description: 'A page of schedules', schema: pageOf(Schedule) },
  responses: { 400: INVALID_PARAMETER },
});
