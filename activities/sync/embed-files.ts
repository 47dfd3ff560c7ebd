/**
 * embedFiles: the file-level embeddings (spec rule 6: path, type, language and the first 100 lines), backfilled into
 * the run's file records. The texts were made while parsing and left in the step ledger by writeBatch, so this step
 * needs no clone and runs on any worker. Resumable: files that already have a vector are not sent again, and the
 * issues of this phase from an earlier attempt are replaced.
 */
import { fileEmbedInputs, recordIssues, setFileEmbeddings } from '../store/index.ts';
import type { EmbedInput, EmbedResult } from '../../workflows/sync-types.ts';
import type { ActivityDeps } from './helpers/deps.ts';
import { batchingOf, embedAll } from './helpers/embed-batches.ts';
import { embeddingIssues } from './helpers/embedding-issues.ts';
import { startHeartbeat } from './helpers/heartbeat.ts';
import { ProgressReporter } from './helpers/progress.ts';
import { resetPhaseIssues } from '../store/reset.ts';
import { claimRun } from './helpers/run-claim.ts';

export function createEmbedFiles({ pool, embeddings, settings, log }: ActivityDeps) {
  async function embedFiles(input: EmbedInput): Promise<EmbedResult> {
    if (!input.embeddings) return { embedded: 0, failed: 0, skipped: true };
    const { syncId, sourceId } = input;
    const hb = startHeartbeat(Math.max(200, Math.floor(settings.heartbeatTimeoutMs / 4)));
    const progress = new ProgressReporter(pool, syncId, sourceId, settings.progressIntervalMs, log);
    try {
      await claimRun(pool, input);
      await resetPhaseIssues(pool, syncId, ['embedding_summaries']);
      const rows = await fileEmbedInputs(pool, syncId);
      const total = rows.length;
      const already = rows.filter((r) => r.done).length;
      const items = rows.filter((r) => !r.done).map((r) => ({ id: r.id, text: r.text, label: r.file_path }));
      await progress.phase('embedding_summaries', total);
      const r = await embedAll(embeddings, items, {
        ...batchingOf(settings),
        signal: hb.signal,
        write: async (pairs) => void (await setFileEmbeddings(pool, pairs)),
        onProgress: (done) => progress.report('embedding_summaries', already + done, total),
      });
      hb.check();
      await recordIssues(pool, syncId, embeddingIssues('embedding_summaries', r));
      const embedded = already + r.embedded;
      progress.report('embedding_summaries', embedded, total);
      await progress.flush();
      return { embedded, failed: total - embedded, skipped: false };
    } finally {
      hb.stop();
    }
  }
  return { embedFiles };
}
