/** Sync commands: POST /api/syncs, cancel, retry, embed, clean (POST or DELETE), pin (POST/DELETE) and purge (DELETE). */
import type Koa from 'koa';
import type { Router } from '@koa/router';
import { syncToJson } from '../../../lib/resources.ts';
import type { IngestionDeps } from '../deps.ts';
import { bodyGitRef, bodyObject, bodyString, bodyUuid, pathUuid, readBody } from '../body.ts';
import { cancelSync } from './cancel.ts';
import { cleanSync } from './clean.ts';
import { createSync } from './create.ts';
import { fillSyncVectors } from './embed.ts';
import { setSyncPin } from './pin.ts';
import { purgeSync } from './purge.ts';
import { retrySync } from './retry.ts';

import { checkSyncConfig } from '../../../lib/sync-config.ts';

export const DEFAULT_TRIGGERED_BY = 'api';
export const DEFAULT_CANCEL_REASON = 'cancelled by request';

export function syncRoutes(router: Router, deps: IngestionDeps): void {
  router.post('/api/syncs', async (ctx: Koa.Context) => {
    const body = readBody(ctx, ['source_id', 'triggered_by', 'ref', 'config_overrides']);
    const sourceId = bodyUuid(body, 'source_id');
    const triggeredBy = bodyString(body, 'triggered_by', { maxLength: 200 }) ?? DEFAULT_TRIGGERED_BY;
    const ref = bodyGitRef(body, 'ref');
    const configOverrides = bodyObject(body, 'config_overrides');
    checkSyncConfig(configOverrides, 'config_overrides');
    const row = await createSync(deps, { sourceId, triggeredBy, ref, configOverrides });
    ctx.status = 201;
    ctx.body = syncToJson(row);
  });

  router.post('/api/syncs/:sync_id/cancel', async (ctx: Koa.Context) => {
    const syncId = pathUuid(ctx, 'sync_id');
    const body = readBody(ctx, ['reason'], true);
    const reason = bodyString(body, 'reason', { maxLength: 1000 }) ?? DEFAULT_CANCEL_REASON;
    ctx.body = syncToJson(await cancelSync(deps, syncId, reason));
  });

  router.post('/api/syncs/:sync_id/retry', async (ctx: Koa.Context) => {
    const syncId = pathUuid(ctx, 'sync_id');
    readBody(ctx, [], true);
    ctx.body = syncToJson(await retrySync(deps, syncId));
  });

  router.post('/api/syncs/:sync_id/embed', async (ctx: Koa.Context) => {
    const syncId = pathUuid(ctx, 'sync_id');
    readBody(ctx, [], true);
    ctx.status = 202;
    ctx.body = await fillSyncVectors(deps, syncId);
  });

  const clean = async (ctx: Koa.Context) => {
    const syncId = pathUuid(ctx, 'sync_id');
    ctx.body = syncToJson(await cleanSync(deps, syncId));
  };
  router.post('/api/syncs/:sync_id/clean', clean);
  router.delete('/api/syncs/:sync_id/clean', clean);

  router.post('/api/syncs/:sync_id/pin', async (ctx: Koa.Context) => {
    const syncId = pathUuid(ctx, 'sync_id');
    readBody(ctx, [], true);
    ctx.body = syncToJson(await setSyncPin(deps, syncId, true));
  });
  router.delete('/api/syncs/:sync_id/pin', async (ctx: Koa.Context) => {
    ctx.body = syncToJson(await setSyncPin(deps, pathUuid(ctx, 'sync_id'), false));
  });

  router.delete('/api/syncs/:sync_id', async (ctx: Koa.Context) => {
    await purgeSync(deps, pathUuid(ctx, 'sync_id'));
    ctx.status = 204;
  });
}
