/**
 * ingestRepository: everything that needs the clone, in one heartbeating activity on one worker — clone (depth 1),
 * parse and chunk through the engine while writing file records and chunks in batches of 500, write the graph,
 * then embed the files (their embedding text comes from the clone and is not stored). Returns counts only.
 * Idempotent: it starts by removing whatever an earlier attempt of the run left.
 */
import { join, resolve } from 'node:path';
import { rm } from 'node:fs/promises';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { EngineIssue, FileAnalysis } from '../engine/types.ts';
import {
  WRITE_BATCH,
  recordIssues,
  setFileEmbeddings,
  writeChunks,
  writeFileRecords,
  writeGraph,
  type FileChunks,
  type GraphFile,
} from '../store/index.ts';
import type { IngestResult, PhaseDurations } from '../../workflows/sync-types.ts';
import { CloneError, cloneRepository, countTrackedFiles, displayUrl } from './clone.ts';
import type { ActivityDeps } from './deps.ts';
import { embedAll, type EmbedItem } from './embed-batches.ts';
import { embeddingIssues } from './embedding-issues.ts';
import { startHeartbeat } from './heartbeat.ts';
import { ProgressReporter } from './progress.ts';
import { resetSyncData } from './reset.ts';
import { loadAccessToken, loadRun } from './runs.ts';
import type { SyncIds } from './lifecycle.ts';

function includePaths(config: Record<string, unknown>): string[] | undefined {
  const v = config.include_paths;
  if (!Array.isArray(v)) return undefined;
  const paths = v.filter((x): x is string => typeof x === 'string' && x !== '');
  return paths.length > 0 ? paths : undefined;
}

export function createIngestActivities(deps: ActivityDeps) {
  const { pool, engine, embeddings, settings, log } = deps;

  async function ingestRepository({ syncId, sourceId }: SyncIds): Promise<IngestResult> {
    const info = Context.current().info;
    const hb = startHeartbeat(Math.max(200, Math.floor(settings.heartbeatTimeoutMs / 4)));
    const progress = new ProgressReporter(pool, syncId, sourceId, settings.progressIntervalMs, log);
    const dir = resolve(join(settings.cloneDir, `${syncId}-${info.attempt}`));
    const durations: PhaseDurations = {};
    const slog = log.child({ sync_id: syncId, source_id: sourceId, attempt: info.attempt });
    try {
      const run = await loadRun(pool, syncId);
      if (!run || run.status !== 'running') {
        throw ApplicationFailure.nonRetryable(`sync run ${syncId} is ${run?.status ?? 'gone'}`, 'SyncNotRunning');
      }
      await resetSyncData(pool, syncId);
      const embeddingsOn = run.config_snapshot.embeddings !== false;

      // Cloning.
      let t = Date.now();
      await progress.phase('cloning', 1);
      hb.note({ phase: 'cloning' });
      const ref = run.ref || run.default_branch;
      const url = run.source_url ?? '';
      let head;
      try {
        const token = await loadAccessToken(pool, sourceId);
        head = await cloneRepository({ url, ref, token, dir, timeoutMs: settings.cloneTimeoutMs, signal: hb.signal });
      } catch (err) {
        hb.check();
        if (!(err instanceof CloneError)) throw err;
        const message = `cloning ${displayUrl(url)} at ${ref} failed: ${err.message}`;
        await recordIssues(pool, syncId, [
          { level: 'error', phase: 'cloning', code: err.code, message, context: { url: displayUrl(url), ref } },
        ]);
        throw ApplicationFailure.nonRetryable(message, 'CloneFailed');
      }
      durations.cloning = Date.now() - t;
      // The phase's end, as every other phase reports it (1/1), before parsing starts.
      progress.report('cloning', 1, 1);
      await progress.flush();
      slog.info('sync_cloned', { commit: head.commitSha, ms: durations.cloning });

      // Parsing: analyses stream in from the engine's worker threads; rows go out in batches of 500, one batch
      // being written while the next one fills.
      t = Date.now();
      const total = await countTrackedFiles(dir, hb.signal);
      await progress.phase('parsing', total);
      const treeIssues: EngineIssue[] = [];
      const graphFiles: GraphFile[] = [];
      const embedInputs: EmbedItem[] = [];
      let files = 0;
      let binaryFiles = 0;
      let chunks = 0;
      let symbols = 0;
      const writeBatch = async (batch: FileAnalysis[]) => {
        const written = await writeFileRecords(
          pool,
          { syncId, sourceId, commitSha: head.commitSha, commitAt: head.commitAt },
          batch,
        );
        const issues: EngineIssue[] = [...written.issues];
        const items: FileChunks[] = [];
        for (const f of batch) {
          issues.push(...f.issues);
          const fileId = written.ids.get(f.file_path);
          if (!fileId) continue;
          files++;
          if (f.binary) binaryFiles++;
          symbols += f.symbols.length;
          if (f.chunks.length > 0) items.push({ fileId, filePath: f.file_path, chunks: f.chunks });
          graphFiles.push({
            fileId,
            file_path: f.file_path,
            name: f.name,
            type: f.type,
            domain: f.domain,
            symbols: f.symbols,
            dependencies: f.dependencies,
          });
          if (embeddingsOn && f.embedding_text)
            embedInputs.push({ id: fileId, text: f.embedding_text, label: f.file_path });
        }
        const c = await writeChunks(pool, syncId, items);
        chunks += c.written;
        issues.push(...c.issues, ...treeIssues.splice(0));
        await recordIssues(pool, syncId, issues);
      };
      let writing: Promise<void> = Promise.resolve();
      const failed: { error: Error | null } = { error: null };
      let batch: FileAnalysis[] = [];
      let analysed = 0;
      const analyses = engine.analyzeTree(dir, {
        includePaths: includePaths(run.config_snapshot),
        maxFileBytes: settings.maxFileBytes,
        ...(settings.parseThreads ? { threads: settings.parseThreads } : {}),
        onIssue: (issue) => treeIssues.push(issue),
      });
      for await (const analysis of analyses) {
        hb.check();
        batch.push(analysis);
        analysed++;
        progress.report('parsing', analysed, Math.max(total, analysed));
        if (batch.length >= WRITE_BATCH) {
          await writing;
          if (failed.error) throw failed.error;
          const full = batch;
          batch = [];
          writing = writeBatch(full).catch((err: unknown) => {
            failed.error = err instanceof Error ? err : new Error(String(err));
          });
          hb.note({ phase: 'parsing', analysed });
        }
      }
      await writing;
      if (failed.error) throw failed.error;
      await writeBatch(batch);
      await recordIssues(pool, syncId, treeIssues.splice(0));
      progress.report('parsing', analysed, Math.max(total, analysed));
      await progress.flush();
      durations.parsing = Date.now() - t;
      slog.info('sync_parsed', { files, chunks, symbols, ms: durations.parsing });

      // Graphing.
      hb.check();
      t = Date.now();
      await progress.phase('graphing', graphFiles.length);
      hb.note({ phase: 'graphing' });
      const g = await writeGraph(pool, { syncId, sourceId }, graphFiles);
      await recordIssues(pool, syncId, g.issues);
      progress.report('graphing', graphFiles.length, graphFiles.length);
      await progress.flush();
      durations.graphing = Date.now() - t;
      slog.info('sync_graphed', {
        vertices: g.fileVertices + g.symbolVertices,
        edges: g.dependsOnEdges + g.definesEdges,
        ms: durations.graphing,
      });

      // File embeddings (backfilled into the rows written above).
      hb.check();
      const fileEmbeddings = { embedded: 0, failed: 0, skipped: !embeddingsOn };
      if (embeddingsOn) {
        t = Date.now();
        await progress.phase('embedding_summaries', embedInputs.length);
        hb.note({ phase: 'embedding_summaries' });
        const r = await embedAll(embeddings, embedInputs, {
          batchSize: settings.embeddingBatchSize,
          concurrency: settings.embeddingConcurrency,
          breakerFailures: settings.embeddingBreakerFailures,
          signal: hb.signal,
          write: async (pairs) => void (await setFileEmbeddings(pool, pairs)),
          onProgress: (done) => progress.report('embedding_summaries', done, embedInputs.length),
        });
        hb.check();
        await recordIssues(pool, syncId, embeddingIssues('embedding_summaries', r));
        await progress.flush();
        fileEmbeddings.embedded = r.embedded;
        fileEmbeddings.failed = embedInputs.length - r.embedded;
        durations.embedding_summaries = Date.now() - t;
      }
      return {
        commitSha: head.commitSha,
        files,
        binaryFiles,
        chunks,
        symbols,
        vertices: g.fileVertices + g.symbolVertices,
        edges: { depends_on: g.dependsOnEdges, defines: g.definesEdges },
        fileEmbeddings,
        durationsMs: durations,
      };
    } finally {
      hb.stop();
      await rm(dir, { recursive: true, force: true }).catch((err: unknown) =>
        slog.warning('sync_clone_cleanup_failed', { dir, error: err }),
      );
    }
  }

  return { ingestRepository };
}
