/**
 * preciseIndex (issue 29; docs/precise.md): the precise tier of one language of a sync, on a precise worker (task
 * queue `precise-<language>`, served only by workers that have that indexer). The clone does not travel through
 * history: the worker fetches the commit itself (depth 1, the same hardened git as cloneRepository), unless a result
 * for this source, commit, indexer version and settings is stored already (an unchanged commit reuses it without
 * cloning or indexing).
 *
 *   1. the indexer runs within its wall and memory limits (activities/precise/indexers.ts); a failure, a timeout or
 *      an index that cannot be read becomes a sync issue of phase `precise` and the step ends `failed`: the sync goes
 *      on with its heuristic edges (this activity never fails the sync for the indexer's sake);
 *   2. the index is read and matched to the sync's symbols (engine/precise/derive.ts) using the symbol facts the
 *      sync stored (no parse here);
 *   3. one transaction: the heuristic `calls` edges starting in a file the index covers, and its `references` edges to
 *      functions and methods, are deleted; the precise edges are written through the symbol graph's writer
 *      (provenance scip, confidence 1); the step ledger records the result (what was added, removed and confirmed
 *      against the heuristic tier). A repeated step returns the recorded result.
 */
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { withTransaction, type Pool, type Queryable } from '../../lib/db.ts';
import type { Logger } from '../../lib/log.ts';
import type { EngineIssue } from '../../engine/types.ts';
import { readScipIndex } from '../../engine/precise/scip.ts';
import { derivePrecise, type PreciseResult } from '../../engine/precise/derive.ts';
import type { EngineDefinition } from '../../engine/precise/edges.ts';
import type { PreciseIndexInput, PreciseLanguageResult } from '../../workflows/sync-types.ts';
import { GRAPH_NAME, loadGraphLabels } from '../store/graph.ts';
import { loadSymbolFacts, recordIssues, symbolVertices, writeSymbolEdges } from '../store/index.ts';
import { CloneError, checkoutRef, displayUrl } from '../sync/git-checkout.ts';
import { loadAccessToken } from '../sync/access-token.ts';
import { startHeartbeat } from '../sync/heartbeat.ts';
import { claimRun } from '../sync/run-claim.ts';
import { recordStep, recordedResult, withSavepoints } from '../sync/steps.ts';
import { INDEXER_LANGUAGES, runIndexer, type PreciseLanguage } from './indexers.ts';
import type { PreciseSettings } from './settings.ts';
import { preciseMetrics } from './metrics.ts';

export const preciseStep = (language: string) => `precise ${language}`;

export interface PreciseDeps {
  pool: Pool;
  log: Logger;
  settings: PreciseSettings;
  /** The indexers this worker has (installedIndexers). */
  indexers: Partial<Record<PreciseLanguage, { bin: string; version: string }>>;
}

/** The key of a stored result: the indexer's name and version and what changes its output. */
export function toolKey(language: PreciseLanguage, version: string, allowDependencies: boolean): string {
  return `${language}@${version}${allowDependencies ? '+deps' : ''}`;
}

async function storedResult(db: Queryable, sourceId: string, commit: string, language: string, key: string) {
  const r = await db.query<{ result: PreciseResult }>(
    `SELECT result FROM precise_results WHERE source_id = $1 AND commit_sha = $2 AND language = $3 AND tool_key = $4`,
    [sourceId, commit, language, key],
  );
  return r.rows[0]?.result ?? null;
}

/** The sync's File vertices (id → path), from the write steps' hand-off. */
async function fileVertices(db: Queryable, syncId: string): Promise<Map<string, string>> {
  const rows = await db.query<{ files: Array<[string, string]> | null }>(
    `SELECT handoff -> 'files' AS files FROM sync_steps WHERE sync_id = $1 AND step LIKE 'write %'`,
    [syncId],
  );
  const out = new Map<string, string>();
  for (const r of rows.rows) for (const [path, vertex] of r.files ?? []) out.set(vertex, path);
  return out;
}

/** Deletes the heuristic edges the precise result replaces; returns them as (label, from vertex, to vertex) keys. */
async function deleteCovered(
  db: Queryable,
  covered: readonly string[],
  files: ReadonlyMap<string, string>,
): Promise<{ removed: Map<string, number>; callsDeleted: number; referencesDeleted: number }> {
  const vertices = [...files].filter(([, path]) => covered.includes(path)).map(([v]) => v);
  const removed = new Map<string, number>();
  if (vertices.length === 0) return { removed, callsDeleted: 0, referencesDeleted: 0 };
  const calls = await db.query<{ s: string; t: string; c: string | null }>(
    `DELETE FROM ${GRAPH_NAME}.calls e USING ${GRAPH_NAME}.defines d
      WHERE d.start_id = ANY($1::text[]::ag_catalog.graphid[]) AND e.start_id = d.end_id
      RETURNING e.start_id::text AS s, e.end_id::text AS t,
                (e.properties ->> '"confidence"'::ag_catalog.agtype)::text AS c`,
    [vertices],
  );
  const refs = await db.query<{ s: string; t: string; c: string | null }>(
    `DELETE FROM ${GRAPH_NAME}."references" e USING ${GRAPH_NAME}.defines d, ${GRAPH_NAME}."Symbol" t
      WHERE d.start_id = ANY($1::text[]::ag_catalog.graphid[]) AND e.start_id = d.end_id AND t.id = e.end_id
        AND (t.properties ->> '"kind"'::ag_catalog.agtype)::text IN ('function', 'method')
      RETURNING e.start_id::text AS s, e.end_id::text AS t,
                (e.properties ->> '"confidence"'::ag_catalog.agtype)::text AS c`,
    [vertices],
  );
  for (const r of calls.rows) removed.set(`calls\u0000${r.s}\u0000${r.t}`, Number(r.c ?? 0));
  for (const r of refs.rows) removed.set(`references\u0000${r.s}\u0000${r.t}`, Number(r.c ?? 0));
  return { removed, callsDeleted: calls.rowCount ?? 0, referencesDeleted: refs.rowCount ?? 0 };
}

export function createPreciseIndex(deps: PreciseDeps) {
  const { pool, log, settings } = deps;
  const metrics = preciseMetrics();

  async function failed(
    input: PreciseIndexInput,
    started: number,
    code: string,
    message: string,
    context: Record<string, unknown>,
  ): Promise<PreciseLanguageResult> {
    const issue: EngineIssue = { level: 'warning', phase: 'precise', code, message, context };
    const result: PreciseLanguageResult = {
      language: input.language,
      status: 'failed',
      reason: code,
      edges: 0,
      external: 0,
      replaced: 0,
      added: 0,
      removed: 0,
      confirmed: 0,
      ms: Date.now() - started,
    };
    await withTransaction(pool, async (tx) => {
      await recordIssues(tx, input.syncId, [issue]);
      await recordStep(tx, input.syncId, preciseStep(input.language), result);
    });
    metrics.runs.inc({ language: input.language, outcome: 'failed' });
    log.warning('precise_failed', { sync_id: input.syncId, language: input.language, code, message });
    return result;
  }

  async function preciseIndex(input: PreciseIndexInput): Promise<PreciseLanguageResult> {
    const { syncId, sourceId, commitSha } = input;
    const language = input.language as PreciseLanguage;
    const done = await recordedResult<PreciseLanguageResult>(pool, syncId, preciseStep(language));
    if (done) return done;
    const indexer = deps.indexers[language];
    const limits = settings.limits[language];
    const started = Date.now();
    const hb = startHeartbeat(Math.max(200, Math.floor(settings.heartbeatTimeoutMs / 4)));
    let scratch: string | null = null;
    try {
      const run = await claimRun(pool, input);
      if (!indexer) {
        return await failed(
          input,
          started,
          'precise_indexer_missing',
          `this worker has no indexer for ${language}`,
          {},
        );
      }
      const key = toolKey(language, indexer.version, settings.allowDependencies);
      let result = await storedResult(pool, sourceId, commitSha, language, key);
      const reused = result !== null;
      let indexerMs = 0;
      const facts = await loadSymbolFacts(pool, syncId);
      const defsByFile = new Map<string, EngineDefinition[]>();
      for (const f of facts) {
        if (!INDEXER_LANGUAGES[language].includes(f.language)) continue;
        defsByFile.set(
          f.file_path,
          f.facts.defs.map((d) => ({
            key: d.key,
            name: d.name,
            kind: d.symbol_kind,
            line: d.line,
            end_line: d.end_line,
          })),
        );
      }
      if (!result) {
        await mkdir(settings.workDir, { recursive: true });
        scratch = await mkdtemp(join(settings.workDir, `${language}-`));
        const dir = join(scratch, 'checkout');
        const url = run.source_url ?? '';
        try {
          const token = await loadAccessToken(pool, sourceId);
          await checkoutRef({
            url,
            urls: settings.sourceUrls,
            ref: commitSha,
            token,
            dir,
            timeoutMs: settings.cloneTimeoutMs,
            signal: hb.signal,
          });
        } catch (err) {
          hb.check();
          if (!(err instanceof CloneError)) throw err;
          return await failed(
            input,
            started,
            'precise_clone_failed',
            `the precise worker could not fetch ${displayUrl(url)} at ${commitSha.slice(0, 12)}: ${err.message}`,
            { language },
          );
        }
        hb.check();
        const output = join(scratch, 'index.scip');
        const r = await runIndexer({
          language,
          bin: indexer.bin,
          root: dir,
          output,
          scratch,
          limits,
          allowDependencies: settings.allowDependencies,
          version: commitSha,
          project: run.source_name ?? 'source',
          goCacheDir: join(settings.workDir, 'go-cache'),
          signal: hb.signal,
        });
        indexerMs = r.ms;
        metrics.seconds.observe({ language }, r.ms / 1000);
        hb.check();
        if (!r.ok) {
          const code =
            r.failure === 'timeout'
              ? 'precise_timeout'
              : r.failure === 'memory'
                ? 'precise_memory_limit'
                : 'precise_indexer_failed';
          const what =
            r.failure === 'timeout'
              ? `did not finish within ${Math.round(limits.wallMs / 1000)} s`
              : r.failure === 'memory'
                ? `went over its memory limit of ${limits.memoryMb} MB`
                : `failed (${r.failure})`;
          return await failed(
            input,
            started,
            code,
            `${indexer.version} for ${language} ${what}; heuristic edges kept`,
            {
              language,
              indexer: indexer.version,
              output_tail: r.tail.slice(-1000),
            },
          );
        }
        let index;
        try {
          index = readScipIndex(await readFile(output));
        } catch (err) {
          return await failed(
            input,
            started,
            'precise_index_unreadable',
            `the ${language} index could not be read: ${String(err)}`,
            {
              language,
            },
          );
        }
        const cache = new Map<string, string[] | null>();
        const linesOf = (path: string): string[] | null => {
          if (!cache.has(path)) cache.set(path, null);
          return cache.get(path) ?? null;
        };
        // The files' lines tell calls from references; read them once, up front (derive is synchronous).
        for (const doc of index.documents) {
          try {
            cache.set(doc.relative_path, (await readFile(join(dir, doc.relative_path), 'utf8')).split('\n'));
          } catch {
            cache.set(doc.relative_path, null);
          }
        }
        result = derivePrecise(index, defsByFile, linesOf);
        await pool.query(
          `INSERT INTO precise_results (source_id, commit_sha, language, tool_key, result)
           VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
          [sourceId, commitSha, language, key, JSON.stringify(result)],
        );
      }
      hb.check();
      const stored = result;
      const files = await fileVertices(pool, syncId);
      const vertexOf = await symbolVertices(pool, files);
      const labels = await loadGraphLabels(pool);
      const out = await withTransaction(pool, async (tx) => {
        const del = await deleteCovered(tx, stored.covered, files);
        const w = await writeSymbolEdges(withSavepoints(tx), input, stored.edges, vertexOf, labels);
        let added = 0;
        let confirmed = 0;
        const moved: number[] = [];
        for (const e of stored.edges) {
          const s = vertexOf.get(e.from);
          const t = vertexOf.get(e.to);
          if (s === undefined || t === undefined) continue;
          const before = del.removed.get(`${e.label}\u0000${s}\u0000${t}`);
          if (before === undefined) added++;
          else {
            confirmed++;
            moved.push(before);
            del.removed.delete(`${e.label}\u0000${s}\u0000${t}`);
          }
        }
        const result: PreciseLanguageResult = {
          language,
          status: reused ? 'reused' : 'indexed',
          indexer: indexer.version,
          edges: w.edges.calls + w.edges.references,
          external: stored.external.length,
          replaced: del.callsDeleted + del.referencesDeleted,
          added,
          removed: del.removed.size,
          confirmed,
          confidence_moved:
            moved.length === 0 ? 0 : Number((1 - moved.reduce((a, b) => a + b, 0) / moved.length).toFixed(4)),
          covered_files: stored.covered.length,
          callables: stored.callables,
          matched: stored.matched,
          dangling: w.dangling,
          indexer_ms: Math.round(indexerMs),
          ms: Date.now() - started,
        };
        await recordIssues(tx, syncId, w.issues);
        await recordStep(tx, syncId, preciseStep(language), result);
        return result;
      });
      metrics.runs.inc({ language, outcome: out.status });
      metrics.edges.inc({ language }, out.edges);
      log.info('precise_done', { sync_id: syncId, source_id: sourceId, ...out });
      return out;
    } finally {
      hb.stop();
      if (scratch) await rm(scratch, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  return { preciseIndex };
}
