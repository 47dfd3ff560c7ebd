/**
 * Sync commands: POST /api/syncs, cancel, retry, embed, clean (POST or DELETE), pin (POST/DELETE) and purge
 * (DELETE), as declared in lib/api/routes/syncs.ts (their validation and document come from there).
 */
import type { Router } from '@koa/router';
import {
  DEFAULT_CANCEL_REASON,
  DEFAULT_TRIGGERED_BY,
  cancelSync as cancelRoute,
  cleanSync as cleanRoute,
  cleanSyncDelete,
  createSync as createRoute,
  embedSync,
  pinSync,
  purgeSync as purgeRoute,
  retrySync as retryRoute,
  unpinSync,
} from '../../../lib/api/routes/syncs.ts';
import { mount } from '../../../lib/api/route.ts';
import { syncToJson } from '../../../lib/resources.ts';
import type { IngestionDeps } from '../deps.ts';
import { cancelSync } from './cancel.ts';
import { cleanSync } from './clean.ts';
import { createSync } from './create.ts';
import { fillSyncVectors } from './embed.ts';
import { setSyncPin } from './pin.ts';
import { purgeSync } from './purge.ts';
import { retrySync } from './retry.ts';

export function syncRoutes(router: Router, deps: IngestionDeps): void {
  mount(router, createRoute, async ({ body }) => {
    const row = await createSync(deps, {
      sourceId: body.source_id,
      triggeredBy: body.triggered_by ?? DEFAULT_TRIGGERED_BY,
      ref: body.ref,
      configOverrides: body.config_overrides,
    });
    return syncToJson(row);
  });
  mount(router, cancelRoute, async ({ params, body }) =>
    syncToJson(await cancelSync(deps, params.sync_id, body.reason ?? DEFAULT_CANCEL_REASON)),
  );
  mount(router, retryRoute, async ({ params }) => syncToJson(await retrySync(deps, params.sync_id)));
  mount(router, embedSync, async ({ params }) => fillSyncVectors(deps, params.sync_id));
  for (const def of [cleanRoute, cleanSyncDelete]) {
    mount(router, def, async ({ params }) => syncToJson(await cleanSync(deps, params.sync_id)));
  }
  mount(router, pinSync, async ({ params }) => syncToJson(await setSyncPin(deps, params.sync_id, true)));
  mount(router, unpinSync, async ({ params }) => syncToJson(await setSyncPin(deps, params.sync_id, false)));
  mount(router, purgeRoute, async ({ params }) => {
    await purgeSync(deps, params.sync_id);
  });
}
