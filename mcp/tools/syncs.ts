/**
 * list_syncs, start_sync and sync_progress. Progress is a read of the run (status, phase, done/total, first
 * issues): an agent asks again rather than holding a tool call open for a sync that takes minutes.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { request, type Api } from '../../lib/api/client.ts';
import { createSync, getSync, listIssues, listSyncs } from '../../lib/api/routes/syncs.ts';
import type { Sync } from '../../lib/api/schemas.ts';
import { SYNC_STATUSES } from '../../lib/sync-runs/types.ts';
import { fitList, jsonResult } from '../fit.ts';
import { safely } from './common.ts';
import { cursor } from './sources.ts';

/** The part of a run an agent needs. */
export function syncBrief(s: Sync): Record<string, unknown> {
  const pct = s.progress_total > 0 ? Math.round((100 * s.progress_done) / s.progress_total) : undefined;
  return {
    id: s.id,
    source_id: s.source_id,
    status: s.status,
    phase: (s.progress_meta as { phase?: string }).phase,
    progress: `${s.progress_done}/${s.progress_total}${pct === undefined ? '' : ` (${pct}%)`}`,
    error: s.error ?? undefined,
    issues_recorded: s.issues_recorded,
    triggered_by: s.triggered_by,
    created_at: s.created_at,
    started_at: s.started_at,
    completed_at: s.completed_at,
  };
}

export function registerSyncs(server: McpServer, api: Api): void {
  server.registerTool(
    'list_syncs',
    {
      title: 'Sync runs',
      description: 'Sync runs (snapshots of a source), newest first, with status and progress.',
      inputSchema: {
        source_id: z.string().uuid().optional(),
        status: z.enum(SYNC_STATUSES).optional(),
        cursor,
        limit: z.number().int().min(1).max(200).default(20),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ source_id, status, cursor, limit }) =>
      safely(async () => {
        const page = await request(api, listSyncs, { query: { source_id, status, cursor, limit } });
        const items = page.items.map(syncBrief);
        return fitList({ next_cursor: page.next_cursor }, 'syncs', items, { offset: 0, total: items.length });
      }),
  );

  server.registerTool(
    'start_sync',
    {
      title: 'Start a sync of a source',
      description:
        'Takes a new snapshot of the repository (clone, parse, graph, embeddings). One sync per source at a time: ' +
        'when one is active the answer names it. Follow it with sync_progress.',
      inputSchema: { source_id: z.string().uuid() },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    ({ source_id }) =>
      safely(async () => {
        const s = await request(api, createSync, { body: { source_id, triggered_by: 'mcp' } });
        return jsonResult(syncBrief(s));
      }),
  );

  server.registerTool(
    'sync_progress',
    {
      title: 'Progress of a sync',
      description:
        'Status (pending, running, completed, failed, cancelled, cleaned), current phase, items done of total, ' +
        'error, and the first issues recorded. Call again to see it move.',
      inputSchema: { sync_id: z.string().uuid() },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ sync_id }) =>
      safely(async () => {
        const [s, issues] = await Promise.all([
          request(api, getSync, { params: { sync_id } }),
          request(api, listIssues, { params: { sync_id }, query: { limit: 10 } }),
        ]);
        return jsonResult({ ...syncBrief(s), stats: s.stats, first_issues: issues.items });
      }),
  );
}
