/**
 * /ingest/*: direct access for operators and for the graph component (the gateway proxies it unchanged).
 * - DELETE /ingest/sources/{source_id}: source teardown (204, idempotent).
 * - GET /ingest/workflows/{source_id}: the Temporal state of the source's sync workflow.
 * - GET /ingest/schedules/{schedule_id}: the row next to its Temporal schedule.
 */
import type { Router } from '@koa/router';
import { mount } from '../../../lib/api/route.ts';
import { getScheduleState, getWorkflowState, teardownSource as teardownRoute } from '../../../lib/api/routes/ingest.ts';
import { NotFoundError } from '../../../lib/errors.ts';
import { scheduleToJson } from '../../../lib/resources.ts';
import type { IngestionDeps } from '../deps.ts';
import { getSchedule, temporalIdOfRow } from '../../../lib/schedules.ts';
import { describeTemporalSchedule, nextRunOf } from '../schedules/temporal.ts';
import { describeSourceWorkflow, syncIdOf } from '../syncs/workflow.ts';
import { CKG_SOURCE_NAME, CKG_TRIGGER } from '../../../workflows/sync-contract.ts';
import { teardownSource } from './teardown.ts';

export function ingestRoutes(router: Router, deps: IngestionDeps): void {
  mount(router, teardownRoute, async ({ params }) => {
    await teardownSource(deps, params.source_id);
  });

  mount(router, getWorkflowState, async ({ params }) => {
    const sourceId = params.source_id;
    const d = await describeSourceWorkflow(deps.temporal, sourceId);
    if (!d) throw new NotFoundError('workflow of source', sourceId);
    const name = d.typedSearchAttributes.get(CKG_SOURCE_NAME);
    const trigger = d.typedSearchAttributes.get(CKG_TRIGGER);
    return {
      workflow_id: d.workflowId,
      run_id: d.runId,
      type: d.type,
      status: d.status.name,
      task_queue: d.taskQueue,
      sync_id: syncIdOf(d) ?? null,
      source: typeof name === 'string' ? name : null,
      triggered_by: typeof trigger === 'string' ? trigger : null,
      start_time: d.startTime.toISOString(),
      close_time: d.closeTime?.toISOString() ?? null,
      history_length: d.historyLength,
      memo: d.memo ?? {},
    };
  });

  mount(router, getScheduleState, async ({ params }) => {
    const id = params.schedule_id;
    const row = await getSchedule(deps.pool, id);
    if (!row) throw new NotFoundError('schedule', id);
    const temporalId = temporalIdOfRow(deps.settings.scheduleIdPrefix, row);
    const d = await describeTemporalSchedule(deps.temporal, temporalId);
    return {
      schedule: scheduleToJson(row),
      temporal: d
        ? {
            schedule_id: d.scheduleId,
            paused: d.state.paused,
            note: d.state.note ?? null,
            next_action_times: d.info.nextActionTimes.map((t) => t.toISOString()),
            next_run_at: nextRunOf(d)?.toISOString() ?? null,
            recent_actions: d.info.recentActions.map((a) => ({
              scheduled_at: a.scheduledAt.toISOString(),
              taken_at: a.takenAt.toISOString(),
              workflow_id: a.action.workflow.workflowId,
              run_id: a.action.workflow.firstExecutionRunId,
            })),
            running_workflows: d.info.runningActions.map((a) => a.workflow.workflowId),
          }
        : { schedule_id: temporalId, missing: true },
    };
  });
}
