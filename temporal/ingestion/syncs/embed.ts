/**
 * POST /api/syncs/{id}/embed: fills the vectors a completed sync lacks (the model host was down while it ran)
 * without a new sync. Starts the worker's `fillVectorsWorkflow` (id `embed-<sync id>`; a fill already running for
 * the sync is joined, not doubled) and answers 202 with what is missing now. 409 FAILED_PRECONDITION unless the sync
 * is completed; 404 for an unknown sync. The run's stats.embeddings and embedding issues are updated when the fill
 * ends, with a `sync_vectors_filled` event.
 */
import { FailedPreconditionError, NotFoundError } from '../../../lib/errors.ts';
import {
  FILL_VECTORS_WORKFLOW_TYPE,
  fillVectorsWorkflowId,
  type FillVectorsInput,
} from '../../../workflows/fill-vectors-contract.ts';
import type { IngestionDeps } from '../deps.ts';
import { requireTemporal } from '../temporal-gate.ts';
import { getSync } from '../../../lib/sync-runs/index.ts';

export interface EmbedAccepted {
  sync_id: string;
  workflow_id: string;
  missing: { file_vectors: number; chunk_vectors: number };
}

export async function fillSyncVectors(deps: IngestionDeps, syncId: string): Promise<EmbedAccepted> {
  const run = await getSync(deps.pool, syncId);
  if (!run) throw new NotFoundError('sync', syncId);
  if (run.status !== 'completed') {
    throw new FailedPreconditionError(`sync ${syncId} is ${run.status}; only a completed sync's vectors are filled`, {
      status: run.status,
    });
  }
  const m = await deps.pool.query<{ files: number; chunks: number }>(
    `SELECT (SELECT count(*)::int FROM sync_files s JOIN file_contents c ON c.id = s.content_id
              WHERE s.sync_id = $1 AND c.embedding IS NULL) AS files,
            (SELECT count(*)::int FROM sync_files s JOIN file_content_chunks k ON k.content_id = s.content_id
              WHERE s.sync_id = $1 AND k.embedding IS NULL) AS chunks`,
    [syncId],
  );
  const missing = m.rows[0] ?? { files: 0, chunks: 0 };
  await requireTemporal(deps);
  const workflowId = fillVectorsWorkflowId(syncId);
  const input: FillVectorsInput = { syncId, sourceId: run.source_id };
  await deps.temporal.workflow.start(FILL_VECTORS_WORKFLOW_TYPE, {
    workflowId,
    taskQueue: deps.settings.taskQueue,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  deps.log.info('sync_embed_started', { sync_id: syncId, ...missing });
  return {
    sync_id: syncId,
    workflow_id: workflowId,
    missing: { file_vectors: missing.files, chunk_vectors: missing.chunks },
  };
}
