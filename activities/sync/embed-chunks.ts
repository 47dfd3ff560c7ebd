/**
 * embedChunks: backfills the embeddings of the run's chunks, read back from the database (no clone needed, so it
 * may run on any worker). Chunks are shared by the syncs that hold the same file content (schema V12): a chunk a
 * reused file brought along already has its vector, and one that lacks it (the model host was down) gets it here.
 * Resumable: only chunks still without a vector are embedded, and the issues of this
 * phase from an earlier attempt are replaced, so a retry ends as a clean run does.
 *
 * Each chunk that defines names or holds messages also gets its key vector (engine/embedding.ts chunkKeyInput),
 * embedded after its content's, in the same page. A key text that fails is left without a vector (semantic search
 * then reads the content's alone) and is not counted as a failed chunk: the chunk's own vector is what rule 7 asks.
 */
import { chunkEmbeddingInput, chunkKeyInput } from '../../engine/embedding.ts';
import {
  chunkVectorCounts,
  chunksWithoutVector,
  recordIssues,
  setChunkEmbeddings,
  setChunkKeyEmbeddings,
  type ChunkToEmbed,
} from '../store/index.ts';
import type { EmbedInput, EmbedResult, SyncIds } from '../../workflows/sync-types.ts';
import type { ActivityDeps } from './helpers/deps.ts';
import { batchingOf, embedAll, type EmbedAllResult } from './helpers/embed-batches.ts';
import { embeddingIssues } from './helpers/embedding-issues.ts';
import { startHeartbeat } from './helpers/heartbeat.ts';
import { ProgressReporter } from './helpers/progress.ts';
import { resetPhaseIssues } from '../store/reset.ts';
import { claimRun } from './helpers/run-claim.ts';

const PAGE = 4096;

export function createEmbedChunks(deps: ActivityDeps) {
  async function embedChunks(input: EmbedInput): Promise<EmbedResult> {
    if (!input.embeddings) return { embedded: 0, failed: 0, skipped: true };
    return embedSyncChunks(deps, input, true);
  }

  return { embedChunks };
}

/** The key texts of a page of chunks (those that have one and no key vector yet). */
function keyItems(page: ChunkToEmbed[]) {
  const out: Array<{ id: string; text: string; label: string }> = [];
  for (const r of page) {
    if (!r.needs_key) continue;
    const text = chunkKeyInput(r.content, r.symbols);
    if (text !== null) out.push({ id: r.id, text, label: `${r.file_path}#${r.chunk_index} (key)` });
  }
  return out;
}

/**
 * Embeds the sync's chunks that have no vector. `claim`: the sync must be running and this execution its owner (the
 * sync's own step); false for the fill of a completed sync (fill-vectors.ts).
 */
export async function embedSyncChunks(deps: ActivityDeps, input: SyncIds, claim: boolean): Promise<EmbedResult> {
  const { pool, embeddings, settings, log } = deps;
  const { syncId, sourceId } = input;
  const hb = startHeartbeat(Math.max(200, Math.floor(settings.heartbeatTimeoutMs / 4)));
  const progress = new ProgressReporter(pool, syncId, sourceId, settings.progressIntervalMs, log);
  try {
    if (claim) await claimRun(pool, input);
    await resetPhaseIssues(pool, syncId, ['embedding_chunks']);
    // The sync's chunks: as its write steps recorded them (the sync's own step), or counted (the fill of a completed
    // sync); the ones without a vector (store/embeddings.ts chunkVectorCounts).
    const { total, missing } = await chunkVectorCounts(pool, syncId, claim);
    await progress.phase('embedding_chunks', total);
    let embedded = total - missing;
    let cursor = '00000000-0000-0000-0000-000000000000';
    const all: EmbedAllResult = { embedded: 0, failures: [], skipped: [] };
    while (missing > 0) {
      hb.check();
      const page = await chunksWithoutVector(pool, syncId, cursor, PAGE);
      if (page.length === 0) break;
      cursor = page[page.length - 1]!.id;
      const base = embedded;
      // Once the breaker opened, the rest is skipped without requests.
      const breakerOpen = all.skipped.length > 0;
      const items = page.map((r) => ({
        id: r.id,
        text: chunkEmbeddingInput(r.content),
        label: `${r.file_path}#${r.chunk_index}`,
      }));
      if (breakerOpen) {
        all.skipped.push(...items);
        continue;
      }
      const r = await embedAll(embeddings, items, {
        ...batchingOf(settings),
        signal: hb.signal,
        write: async (pairs) => void (await setChunkEmbeddings(pool, pairs)),
        onProgress: (done) => progress.report('embedding_chunks', base + done, total),
      });
      hb.check();
      const keys = r.skipped.length > 0 ? [] : keyItems(page);
      if (keys.length > 0) {
        await embedAll(embeddings, keys, {
          ...batchingOf(settings),
          signal: hb.signal,
          write: async (pairs) => void (await setChunkKeyEmbeddings(pool, pairs)),
        });
        hb.check();
      }
      embedded += r.embedded;
      all.embedded += r.embedded;
      all.failures.push(...r.failures);
      all.skipped.push(...r.skipped);
      hb.note({ phase: 'embedding_chunks', embedded });
    }
    await recordIssues(pool, syncId, embeddingIssues('embedding_chunks', all));
    progress.report('embedding_chunks', embedded, total);
    await progress.flush();
    return { embedded, failed: total - embedded, skipped: false };
  } finally {
    hb.stop();
  }
}
