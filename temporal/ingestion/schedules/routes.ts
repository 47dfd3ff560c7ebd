/**
 * Schedule writes: POST /api/schedules, PATCH and DELETE /api/schedules/{schedule_id}, as declared in
 * lib/api/routes/schedules.ts (their validation and document come from there).
 */
import type { Router } from '@koa/router';
import { mount } from '../../../lib/api/route.ts';
import {
  createSchedule as createRoute,
  deleteSchedule as deleteRoute,
  patchSchedule as patchRoute,
} from '../../../lib/api/routes/schedules.ts';
import { scheduleToJson } from '../../../lib/resources.ts';
import type { IngestionDeps } from '../deps.ts';
import { createSchedule, deleteSchedule, patchSchedule } from './commands.ts';

export function scheduleRoutes(router: Router, deps: IngestionDeps): void {
  mount(router, createRoute, async ({ body }) => {
    const row = await createSchedule(deps, {
      sourceId: body.source_id,
      intervalMinutes: body.interval_minutes,
      configOverrides: body.config_overrides ?? {},
      enabled: body.enabled ?? true,
    });
    return scheduleToJson(row);
  });
  mount(router, patchRoute, async ({ params, body }) => {
    const { enabled, interval_minutes: intervalMinutes, config_overrides: configOverrides } = body;
    return scheduleToJson(await patchSchedule(deps, params.schedule_id, { enabled, intervalMinutes, configOverrides }));
  });
  mount(router, deleteRoute, async ({ params }) => {
    await deleteSchedule(deps, params.schedule_id);
  });
}
