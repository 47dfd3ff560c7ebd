/** Reads of sync runs, sync issues and schedules. */
import type Router from '@koa/router';
import { NotFoundError } from '../../lib/errors.ts';
import { PAGE, decodeCursor, queryEnum, queryInt, queryString, queryUuid, requireUuid } from '../../lib/validate.ts';
import { toPage } from '../../lib/http.ts';
import type { GraphAppDeps } from '../deps.ts';
import { scheduleToJson, syncToJson } from '../../lib/resources.ts';
import { SYNC_STATUSES } from '../../lib/sync-runs/index.ts';
import { issueJson } from '../rows.ts';
import { ISSUE_LEVELS, getSync, listIssues, listSchedules, listSyncs } from './queries.ts';

export function syncRoutes(router: Router, deps: GraphAppDeps): void {
  const { pool } = deps;

  router.get('/api/syncs', async (ctx) => {
    const sourceId = queryUuid(ctx.query, 'source_id');
    const status = queryEnum(ctx.query, 'status', SYNC_STATUSES);
    const limit = queryInt(ctx.query, 'limit', PAGE);
    const after = decodeCursor(ctx.query, 'uuid');
    const rows = await listSyncs(pool, { sourceId, status, limit: limit + 1, after });
    ctx.body = toPage(rows, limit, syncToJson, (r) => ({ t: r.cursor_t, id: r.id }));
  });

  router.get('/api/syncs/:id', async (ctx) => {
    const id = requireUuid(ctx.params.id, 'sync_id');
    const row = await getSync(pool, id);
    if (!row) throw new NotFoundError('sync', id);
    ctx.body = syncToJson(row);
  });

  router.get('/api/syncs/:id/issues', async (ctx) => {
    const syncId = requireUuid(ctx.params.id, 'sync_id');
    const level = queryEnum(ctx.query, 'level', ISSUE_LEVELS);
    const phase = queryString(ctx.query, 'phase', { maxLength: 100 });
    const limit = queryInt(ctx.query, 'limit', PAGE);
    const after = decodeCursor(ctx.query, 'bigint');
    if (!(await getSync(pool, syncId))) throw new NotFoundError('sync', syncId);
    const rows = await listIssues(pool, { syncId, level, phase, limit: limit + 1, afterId: after?.id });
    ctx.body = toPage(rows, limit, issueJson, (r) => ({ t: r.occurred_at.toISOString(), id: r.id }));
  });

  router.get('/api/schedules', async (ctx) => {
    const sourceId = queryUuid(ctx.query, 'source_id');
    const limit = queryInt(ctx.query, 'limit', PAGE);
    const after = decodeCursor(ctx.query, 'bigint');
    const rows = await listSchedules(pool, { sourceId, limit: limit + 1, after });
    ctx.body = toPage(rows, limit, scheduleToJson, (r) => ({ t: r.cursor_t, id: r.id }));
  });
}
