/**
 * fillSyncVectors: gives a completed sync the vectors it could not get (the model host was down during the sync: it
 * completed with null vectors and embedding issues), without a new sync. Started by POST /api/syncs/{id}/embed
 * through the workflow `fillVectorsWorkflow`.
 *
 * Chunk vectors are embedded from the stored chunk text (as embedChunks does). A file vector's input is the file's
 * first 100 lines, which are not stored (spec rule 6), so the files that lack one are read from a depth-1 clone of
 * the sync's own commit (stats.commit_sha) and analysed again, only those paths. Vectors go to the shared contents
 * (schema V12), so every sync holding the same content gets them. The run's embedding issues are replaced by those
 * of this attempt and stats.embeddings recounted; an event `sync_vectors_filled` says so. Idempotent.
 */
import { join, resolve } from 'node:path';
import { rm } from 'node:fs/promises';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { withTransaction } from '../../lib/db.ts';
import { writeEvent } from '../../lib/events.ts';
import {
  filesWithoutVector,
  missingVectors,
  recordIssues,
  recountEmbeddingStats,
  setFileEmbeddings,
} from '../store/index.ts';
import { checkoutRef } from './helpers/git-checkout.ts';
import { embedSyncChunks } from './embed-chunks.ts';
import type { ActivityDeps } from './helpers/deps.ts';
import { batchingOf, embedAll, type EmbedItem } from './helpers/embed-batches.ts';
import { embeddingIssues } from './helpers/embedding-issues.ts';
import { startHeartbeat } from './helpers/heartbeat.ts';
import type { SyncIds } from '../../workflows/sync-types.ts';
import { resetPhaseIssues } from '../store/reset.ts';
import { loadRun } from '../../lib/sync-runs/index.ts';
import { loadAccessToken } from '../store/secrets.ts';

export interface FillVectorsResult {
  syncId: string;
  files: { missing: number; embedded: number };
  chunks: { missing: number; embedded: number };
}

export function createFillVectorActivities(deps: ActivityDeps) {
  const { pool, engine, embeddings, settings } = deps;

  async function fillFileVectors(ids: SyncIds, commitSha: string, url: string): Promise<number> {
    const missing = await filesWithoutVector(pool, ids.syncId);
    await resetPhaseIssues(pool, ids.syncId, ['embedding_summaries']);
    if (missing.length === 0) return 0;
    const idByPath = new Map(missing.map((r) => [r.file_path, r.id]));
    const hb = startHeartbeat(Math.max(200, Math.floor(settings.heartbeatTimeoutMs / 4)));
    const dir = resolve(join(settings.cloneDir, `fill-${ids.syncId}-${Context.current().info.attempt}`));
    try {
      const token = await loadAccessToken(pool, ids.sourceId);
      await checkoutRef({
        url,
        ref: commitSha,
        token,
        urls: settings.sourceUrls,
        dir,
        timeoutMs: settings.cloneTimeoutMs,
        signal: hb.signal,
      });
      const items: EmbedItem[] = [];
      for await (const f of engine.analyzeTree(dir, {
        includePaths: [...idByPath.keys()],
        maxFileBytes: settings.maxFileBytes,
        ...(settings.parseThreads ? { threads: settings.parseThreads } : {}),
      })) {
        hb.check();
        const id = idByPath.get(f.file_path);
        if (id && f.embedding_text) items.push({ id, text: f.embedding_text, label: f.file_path });
      }
      const r = await embedAll(embeddings, items, {
        ...batchingOf(settings),
        signal: hb.signal,
        write: async (pairs) => void (await setFileEmbeddings(pool, pairs)),
      });
      hb.check();
      await recordIssues(pool, ids.syncId, embeddingIssues('embedding_summaries', r));
      return r.embedded;
    } finally {
      hb.stop();
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  async function fillSyncVectors(ids: SyncIds): Promise<FillVectorsResult> {
    const run = await loadRun(pool, ids.syncId);
    if (!run || run.status !== 'completed') {
      throw ApplicationFailure.nonRetryable(`sync run ${ids.syncId} is ${run?.status ?? 'gone'}`, 'SyncNotCompleted');
    }
    const commitSha = typeof run.stats.commit_sha === 'string' ? run.stats.commit_sha : null;
    const before = await missingVectors(pool, ids.syncId);
    const filesEmbedded =
      before.files > 0 && commitSha ? await fillFileVectors(ids, commitSha, run.source_url ?? '') : 0;
    const chunks = await embedSyncChunks(deps, ids, false);
    const after = await missingVectors(pool, ids.syncId);
    await withTransaction(pool, async (tx) => {
      await recountEmbeddingStats(tx, ids.syncId, after, chunks.embedded);
      await writeEvent(tx, {
        type: 'sync_vectors_filled',
        syncId: ids.syncId,
        sourceId: ids.sourceId,
        payload: {
          sync_id: ids.syncId,
          source_id: ids.sourceId,
          missing_before: before,
          missing_after: after,
        },
      });
    });
    return {
      syncId: ids.syncId,
      files: { missing: before.files, embedded: filesEmbedded },
      chunks: { missing: before.chunks, embedded: before.chunks - after.chunks },
    };
  }

  return { fillSyncVectors };
}
