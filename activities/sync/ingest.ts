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
  loadGraphLabels,
  recordIssues,
  setFileEmbeddings,
  writeChunks,
  writeDependsOn,
  writeFileGraph,
  writeFileRecords,
  type DependingFile,
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

/**
 * Batches being written at once while the next one fills. Measured on the Go standard library (bench/sync.ts,
 * alternating runs, same CPU totals): 1 batch in flight 31.0 / 32.1 s wall, 2 batches 45.8 / 48.2 s. Two batches
 * insert into content_chunks' GIN index at the same time and wait on each other (same CPU, more idle time); within
 * one batch, chunks and graph rows go to different tables on two connections and do overlap well.
 */
const WRITES_IN_FLIGHT = 1;

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
      if (head.skipped.length > 0) {
        await recordIssues(
          pool,
          syncId,
          head.skipped.map((f) => ({
            level: 'warning' as const,
            phase: 'cloning',
            code: 'path_unrepresentable',
            message: `${f.reason}: the file was left out of the checkout and is not indexed`,
            file_path: f.path,
          })),
        );
      }
      durations.cloning = Date.now() - t;
      // The phase's end, as every other phase reports it (1/1), before parsing starts.
      progress.report('cloning', 1, 1);
      await progress.flush();
      slog.info('sync_cloned', { commit: head.commitSha, ms: durations.cloning });

      // Parsing: analyses stream in from the engine's worker threads; rows go out in batches of 500, up to
      // WRITES_IN_FLIGHT batches being written while the next one fills. Each batch writes its file records, then
      // its chunks and its part of the graph (File and Symbol vertices, defines edges) side by side; the depends_on
      // edges need every File vertex, so they are written once parsing is done.
      t = Date.now();
      const total = await countTrackedFiles(dir, hb.signal);
      await progress.phase('parsing', total);
      const treeIssues: EngineIssue[] = [];
      const graphCtx = { syncId, sourceId };
      const labels = await loadGraphLabels(pool);
      const vertexByPath = new Map<string, string>();
      const depending: DependingFile[] = [];
      const embedInputs: EmbedItem[] = [];
      let files = 0;
      let binaryFiles = 0;
      let chunks = 0;
      let symbols = 0;
      let symbolVertices = 0;
      let definesEdges = 0;
      const writeBatch = async (batch: FileAnalysis[]) => {
        const written = await writeFileRecords(
          pool,
          { syncId, sourceId, commitSha: head.commitSha, commitAt: head.commitAt },
          batch,
        );
        const issues: EngineIssue[] = [...written.issues];
        const items: FileChunks[] = [];
        const graphFiles: GraphFile[] = [];
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
          if (f.dependencies.length > 0) depending.push({ file_path: f.file_path, dependencies: f.dependencies });
          if (embeddingsOn && f.embedding_text)
            embedInputs.push({ id: fileId, text: f.embedding_text, label: f.file_path });
        }
        const [c, g] = await Promise.all([
          writeChunks(pool, syncId, items),
          writeFileGraph(pool, graphCtx, graphFiles, labels),
        ]);
        chunks += c.written;
        for (const [path, vertex] of g.vertexByPath) vertexByPath.set(path, vertex);
        symbolVertices += g.symbolVertices;
        definesEdges += g.definesEdges;
        issues.push(...c.issues, ...g.issues, ...treeIssues.splice(0));
        await recordIssues(pool, syncId, issues);
      };
      const writing = new Set<Promise<void>>();
      const failed: { error: Error | null } = { error: null };
      const startWrite = (full: FileAnalysis[]) => {
        const p: Promise<void> = writeBatch(full)
          .catch((err: unknown) => {
            failed.error ??= err instanceof Error ? err : new Error(String(err));
          })
          .finally(() => writing.delete(p));
        writing.add(p);
      };
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
          while (writing.size >= WRITES_IN_FLIGHT) await Promise.race(writing);
          if (failed.error) throw failed.error;
          startWrite(batch);
          batch = [];
          hb.note({ phase: 'parsing', analysed });
        }
      }
      await Promise.all(writing);
      if (failed.error) throw failed.error;
      await writeBatch(batch);
      await recordIssues(pool, syncId, treeIssues.splice(0));
      progress.report('parsing', analysed, Math.max(total, analysed));
      await progress.flush();
      durations.parsing = Date.now() - t;
      slog.info('sync_parsed', { files, chunks, symbols, ms: durations.parsing });

      // Graphing: the depends_on edges (the vertices and defines edges were written with each batch).
      hb.check();
      t = Date.now();
      await progress.phase('graphing', files);
      hb.note({ phase: 'graphing' });
      const d = await writeDependsOn(pool, graphCtx, depending, vertexByPath, labels);
      await recordIssues(pool, syncId, d.issues);
      progress.report('graphing', files, files);
      await progress.flush();
      durations.graphing = Date.now() - t;
      const vertices = vertexByPath.size + symbolVertices;
      slog.info('sync_graphed', {
        vertices,
        edges: d.dependsOnEdges + definesEdges,
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
        vertices,
        edges: { depends_on: d.dependsOnEdges, defines: definesEdges },
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
