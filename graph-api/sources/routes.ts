/**
 * /api/sources: list, get, upsert (201 created / 200 updated), PATCH, DELETE (ingestion teardown first, then the
 * row and its database cascade). Every change writes a `source_changed` event in the same transaction.
 */
import type Router from '@koa/router';
import { mount } from '../../lib/api/route.ts';
import {
  deleteSource as deleteSourceRoute,
  getSource as getSourceRoute,
  listSources as listSourcesRoute,
  patchSource as patchSourceRoute,
  upsertSource as upsertSourceRoute,
} from '../../lib/api/routes/sources.ts';
import { withDeadlockRetry, withTransaction, type Queryable } from '../../lib/db.ts';
import { NotFoundError } from '../../lib/errors.ts';
import { writeEvent } from '../../lib/events.ts';
import { toPage } from '../../lib/http.ts';
import type { GraphAppDeps } from '../deps.ts';
import { sourceJson } from '../rows.ts';
import { parseCreate, parsePatch } from './body.ts';
import {
  deleteSource,
  getSource,
  listSources,
  patchSource,
  setAccessToken,
  setWebhookSecret,
  upsertSource,
  type SourceRow,
} from './queries.ts';

async function sourceChanged(db: Queryable, row: SourceRow, change: 'created' | 'updated' | 'deleted'): Promise<void> {
  await writeEvent(db, {
    type: 'source_changed',
    sourceId: row.id,
    payload: {
      source_id: row.id,
      change,
      last_sync_id: row.last_sync_id,
      last_synced_at: row.last_synced_at?.toISOString() ?? null,
    },
  });
}

export function sourceRoutes(router: Router, deps: GraphAppDeps): void {
  const { pool, log } = deps;

  mount(router, listSourcesRoute, async ({ query }) => {
    const rows = await listSources(pool, query.limit + 1, query.cursor);
    return toPage(rows, query.limit, sourceJson, (r) => ({ t: r.cursor_t, id: r.id }));
  });

  mount(router, getSourceRoute, async ({ params }) => {
    const row = await getSource(pool, params.source_id);
    if (!row) throw new NotFoundError('source', params.source_id);
    return sourceJson(row);
  });

  mount(router, upsertSourceRoute, async ({ body }, ctx) => {
    const { source, accessToken, webhookSecret } = parseCreate(body, deps.sourceUrls);
    const { row, created } = await withTransaction(pool, async (c) => {
      const { id, created } = await upsertSource(c, source);
      if (accessToken !== undefined) await setAccessToken(c, id, accessToken);
      if (webhookSecret !== undefined) await setWebhookSecret(c, id, webhookSecret);
      const row = (await getSource(c, id))!;
      await sourceChanged(c, row, created ? 'created' : 'updated');
      return { row, created };
    });
    log.info(created ? 'source_created' : 'source_updated', { source_id: row.id, owner: row.owner, name: row.name });
    ctx.status = created ? 201 : 200;
    return sourceJson(row);
  });

  mount(router, patchSourceRoute, async ({ params, body }) => {
    const id = params.source_id;
    const { patch, accessToken, webhookSecret } = parsePatch(body, deps.sourceUrls);
    const row = await withTransaction(pool, async (c) => {
      if (!(await patchSource(c, id, patch))) throw new NotFoundError('source', id);
      if (accessToken !== undefined) await setAccessToken(c, id, accessToken);
      if (webhookSecret !== undefined) await setWebhookSecret(c, id, webhookSecret);
      const row = (await getSource(c, id))!;
      await sourceChanged(c, row, 'updated');
      return row;
    });
    log.info('source_updated', {
      source_id: id,
      fields: Object.keys(patch),
      access_token_changed: accessToken !== undefined,
      webhook_secret_changed: webhookSecret !== undefined,
    });
    return sourceJson(row);
  });

  mount(router, deleteSourceRoute, async ({ params }) => {
    const id = params.source_id;
    const existing = await getSource(pool, id);
    if (!existing) throw new NotFoundError('source', id);
    // Temporal state first: if the ingestion component cannot tear it down, nothing is deleted.
    await deps.ingestion.teardownSource(id);
    const started = Date.now();
    // The cascade can deadlock with the sync's last writes still draining on a worker: run it again then.
    await withDeadlockRetry(pool, async (c) => {
      if (!(await deleteSource(c, id))) throw new NotFoundError('source', id);
      await sourceChanged(c, existing, 'deleted');
    });
    log.info('source_deleted', { source_id: id, ms: Date.now() - started });
  });
}
