/**
 * Reads of sync runs and sync issues (declared in lib/api/routes/syncs.ts) and of schedules
 * (lib/api/routes/schedules.ts): their validation and document come from the declarations.
 */
import type Router from '@koa/router';
import { mount } from '../../lib/api/route.ts';
import { listSchedules as listSchedulesRoute } from '../../lib/api/routes/schedules.ts';
import {
  getSync as getSyncRoute,
  listIssues as listIssuesRoute,
  listSyncs as listSyncsRoute,
} from '../../lib/api/routes/syncs.ts';
import { NotFoundError } from '../../lib/errors.ts';
import { toPage } from '../../lib/http.ts';
import type { GraphAppDeps } from '../deps.ts';
import { scheduleToJson, syncToJson } from '../../lib/resources.ts';
import { issueJson } from '../rows.ts';
import { getSync, listIssues, listSchedules, listSyncs } from './queries.ts';

export function syncRoutes(router: Router, deps: GraphAppDeps): void {
  const { pool } = deps;

  mount(router, listSyncsRoute, async ({ query }) => {
    const { source_id: sourceId, status, limit, cursor: after } = query;
    const rows = await listSyncs(pool, { sourceId, status, limit: limit + 1, after });
    return toPage(rows, limit, syncToJson, (r) => ({ t: r.cursor_t, id: r.id }));
  });

  mount(router, getSyncRoute, async ({ params }) => {
    const row = await getSync(pool, params.sync_id);
    if (!row) throw new NotFoundError('sync', params.sync_id);
    return syncToJson(row);
  });

  mount(router, listIssuesRoute, async ({ params, query }) => {
    const syncId = params.sync_id;
    const { level, phase, limit, cursor } = query;
    if (!(await getSync(pool, syncId))) throw new NotFoundError('sync', syncId);
    const rows = await listIssues(pool, { syncId, level, phase, limit: limit + 1, afterId: cursor?.id });
    return toPage(rows, limit, issueJson, (r) => ({ t: r.occurred_at.toISOString(), id: r.id }));
  });

  mount(router, listSchedulesRoute, async ({ query }) => {
    const { source_id: sourceId, limit, cursor: after } = query;
    const rows = await listSchedules(pool, { sourceId, limit: limit + 1, after });
    return toPage(rows, limit, scheduleToJson, (r) => ({ t: r.cursor_t, id: r.id }));
  });
}
