/** Schedule writes: POST /api/schedules, PATCH and DELETE /api/schedules/{schedule_id}. */
import type Koa from 'koa';
import type { Router } from '@koa/router';
import { InvalidArgumentError } from '../../../lib/errors.ts';
import { scheduleToJson } from '../../../lib/resources.ts';
import type { IngestionDeps } from '../deps.ts';
import { checkSyncConfig } from '../../../lib/sync-config.ts';
import { bodyBool, bodyInt, bodyObject, bodyUuid, pathBigint, readBody } from '../body.ts';
import { createSchedule, deleteSchedule, patchSchedule } from './commands.ts';

/** interval_minutes: at least 1 minute, at most one year. */
export const INTERVAL = { min: 1, max: 525_600 } as const;

export function scheduleRoutes(router: Router, deps: IngestionDeps): void {
  router.post('/api/schedules', async (ctx: Koa.Context) => {
    const body = readBody(ctx, ['source_id', 'interval_minutes', 'config_overrides', 'enabled']);
    const sourceId = bodyUuid(body, 'source_id');
    const intervalMinutes = bodyInt(body, 'interval_minutes', { required: true, ...INTERVAL });
    const configOverrides = bodyObject(body, 'config_overrides') ?? {};
    checkSyncConfig(configOverrides, 'config_overrides');
    const enabled = bodyBool(body, 'enabled') ?? true;
    const row = await createSchedule(deps, { sourceId, intervalMinutes, configOverrides, enabled });
    ctx.status = 201;
    ctx.body = scheduleToJson(row);
  });

  router.patch('/api/schedules/:schedule_id', async (ctx: Koa.Context) => {
    const id = pathBigint(ctx, 'schedule_id');
    const body = readBody(ctx, ['enabled', 'interval_minutes', 'config_overrides']);
    const enabled = bodyBool(body, 'enabled');
    const intervalMinutes = bodyInt(body, 'interval_minutes', INTERVAL);
    const configOverrides = bodyObject(body, 'config_overrides');
    checkSyncConfig(configOverrides, 'config_overrides');
    if (enabled === undefined && intervalMinutes === undefined && configOverrides === undefined) {
      throw new InvalidArgumentError('body', 'must set at least one of enabled, interval_minutes, config_overrides');
    }
    ctx.body = scheduleToJson(await patchSchedule(deps, id, { enabled, intervalMinutes, configOverrides }));
  });

  router.delete('/api/schedules/:schedule_id', async (ctx: Koa.Context) => {
    await deleteSchedule(deps, pathBigint(ctx, 'schedule_id'));
    ctx.status = 204;
  });
}
