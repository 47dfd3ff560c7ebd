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
 *
 * preparePrecise runs step 1 early: the sync starts it right after its clone (it needs only the commit), so the indexer
 * runs beside the parse, the writes and the symbol graph instead of after them. The worker keeps the checkout and the
 * index (`held`, in its scratch folder) and answers with its own task queue (`hostQueue`); the sync sends preciseIndex
 * there once its symbol graph is written, and preciseIndex uses the held index instead of fetching and indexing again.
 * A held index not taken within HELD_TTL_MS is removed (a sync that failed or was cancelled in between); a
 * preciseIndex that finds none (another worker, a restart) fetches and indexes itself, as before.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withTransaction, type Pool } from '../../lib/db.ts';
import type { Logger } from '../../lib/log.ts';
import type { EngineIssue } from '../../engine/types.ts';
import { readScipIndex } from '../../engine/precise/scip.ts';
import { derivePrecise, type PreciseResult } from '../../engine/precise/derive.ts';
import type { EngineDefinition } from '../../engine/precise/edges.ts';
import type { PreciseIndexInput, PreciseLanguageResult, PrecisePrepared } from '../../workflows/sync-types.ts';
import { loadGraphLabels } from '../store/graph.ts';
import {
  deleteCovered,
  deleteRelated,
  latestStoredIndex,
  storedIndexBytes,
  storedPreciseResult,
  storePreciseResult,
} from '../store/precise.ts';
import { loadSymbolFacts, recordIssues, symbolVertices, writeSymbolEdges } from '../store/index.ts';
import { CloneError, checkoutRef, displayUrl, treeBlobs } from '../sync/helpers/git-checkout.ts';
import { loadAccessToken } from '../store/secrets.ts';
import { startHeartbeat, type Heartbeat } from '../sync/helpers/heartbeat.ts';
import { claimRun } from '../sync/helpers/run-claim.ts';
import { recordStep, recordedResult, withSavepoints, writtenFileVertices } from '../store/ledger.ts';
import { INDEXER_LANGUAGES, runIndexer, type PreciseLanguage } from './indexers.ts';
import type { PreciseSettings } from './settings.ts';
import { preciseMetrics } from './metrics.ts';
import { completeIndex, planRerun, type IndexLayout } from './incremental.ts';

export const preciseStep = (language: string) => `precise ${language}`;

export interface PreciseDeps {
  pool: Pool;
  log: Logger;
  settings: PreciseSettings;
  /** The indexers this worker has (installedIndexers). */
  indexers: Partial<Record<PreciseLanguage, { bin: string; version: string }>>;
  /**
   * This worker process's own task queue (temporal/precise-worker.ts), where the sync sends preciseIndex for an index
   * preparePrecise holds here. Without one, preparePrecise holds nothing (preciseIndex indexes by itself).
   */
  hostQueue?: string;
}

/** A held index not taken by its preciseIndex within this long is removed (sweepHeld). */
export const HELD_TTL_MS = 2 * 60 * 60_000;

/** An index preparePrecise made and holds for the sync's preciseIndex on this worker. */
interface Held {
  scratch: string;
  /** The checkout (the index's files: their lines tell calls from references). */
  dir: string;
  output: string;
  indexerMs: number;
  at: number;
  /** scip-typescript: the commit's tree and the index's layout, stored with the result (incremental.ts). */
  index?: { tree: Record<string, string>; layout: IndexLayout };
  /** scip-typescript: projects indexed by this run and taken from an earlier commit's index. */
  projects?: { indexed: number; reused: number };
}

const heldKey = (syncId: string, language: string) => `${syncId}\u0000${language}`;

/** The key of a stored result: the indexer's name and version and what changes its output. */
export function toolKey(language: PreciseLanguage, version: string, allowDependencies: boolean): string {
  return `${language}@${version}${allowDependencies ? '+deps' : ''}`;
}

/** The engine's definitions of the sync's files of the indexer's languages (the symbol facts the sync stored). */
async function engineDefinitions(
  pool: Pool,
  syncId: string,
  language: PreciseLanguage,
): Promise<Map<string, EngineDefinition[]>> {
  const defsByFile = new Map<string, EngineDefinition[]>();
  for (const f of await loadSymbolFacts(pool, syncId)) {
    if (!INDEXER_LANGUAGES[language].includes(f.language)) continue;
    defsByFile.set(
      f.file_path,
      f.facts.defs.map((d) => ({ key: d.key, name: d.name, kind: d.symbol_kind, line: d.line, end_line: d.end_line })),
    );
  }
  return defsByFile;
}

/** Reads an index and derives its edges in the engine's symbols, reading the files' lines first (derive is sync). */
async function deriveIndex(
  held: Held,
  defsByFile: ReadonlyMap<string, EngineDefinition[]>,
): Promise<PreciseResult | { unreadable: string }> {
  let index;
  try {
    index = readScipIndex(await readFile(held.output));
  } catch (err) {
    return { unreadable: String(err) };
  }
  // The files' lines tell calls from references; read them once, up front.
  const cache = new Map<string, string[] | null>();
  for (const doc of index.documents) {
    if (cache.has(doc.relative_path)) continue;
    try {
      cache.set(doc.relative_path, (await readFile(join(held.dir, doc.relative_path), 'utf8')).split('\n'));
    } catch {
      cache.set(doc.relative_path, null);
    }
  }
  return derivePrecise(index, defsByFile, (path) => cache.get(path) ?? null);
}

/** The counts against the heuristic tier: what the precise edges added and confirmed, with the confidence moved. */
function compareTiers(
  edges: PreciseResult['edges'],
  vertexOf: ReadonlyMap<string, string>,
  removed: Map<string, number>,
): { added: number; confirmed: number; moved: number } {
  let added = 0;
  const before: number[] = [];
  for (const e of edges) {
    const s = vertexOf.get(e.from);
    const t = vertexOf.get(e.to);
    if (s === undefined || t === undefined) continue;
    const key = `${e.label}\u0000${s}\u0000${t}`;
    const was = removed.get(key);
    if (was === undefined) added++;
    else {
      before.push(was);
      removed.delete(key);
    }
  }
  const moved = before.length === 0 ? 0 : Number((1 - before.reduce((a, b) => a + b, 0) / before.length).toFixed(4));
  return { added, confirmed: before.length, moved };
}

/** What the precise activities of one worker share: its dependencies, metrics and the indexes it holds. */
interface PreciseContext {
  deps: PreciseDeps;
  metrics: ReturnType<typeof preciseMetrics>;
  /** Indexes made by preparePrecise on this worker, by sync and language, until that sync's preciseIndex takes them. */
  held: Map<string, Held>;
}

async function failed(
  ctx: PreciseContext,
  input: PreciseIndexInput,
  started: number,
  code: string,
  message: string,
  context: Record<string, unknown>,
): Promise<PreciseLanguageResult> {
  const { pool, log } = ctx.deps;
  const { metrics } = ctx;
  const issue: EngineIssue = { level: 'warning', phase: 'precise', code, message, context };
  const result: PreciseLanguageResult = {
    language: input.language,
    status: 'failed',
    reason: code,
    // The indexer version that failed (graph-alias.ts: an unchanged re-sync need not try it again).
    ...(typeof context.indexer === 'string' ? { indexer: context.indexer } : {}),
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

/** A new scratch folder of one run (the caller removes it, or holds it with its index). */
async function newScratch(ctx: PreciseContext, language: string): Promise<string> {
  const { settings } = ctx.deps;
  await mkdir(settings.workDir, { recursive: true });
  return mkdtemp(join(settings.workDir, `${language}-`));
}

/**
 * Fetches the commit into `scratch` and runs the indexer there within its limits. A failure is recorded (issue and
 * step ledger, through `failed`) and returned as the step's result.
 */
async function makeIndex(
  ctx: PreciseContext,
  input: PreciseIndexInput,
  run: { source_url: string | null; source_name?: string | null },
  started: number,
  hb: Heartbeat,
  scratch: string,
): Promise<{ held: Held } | { failed: PreciseLanguageResult }> {
  const { deps, metrics } = ctx;
  const { pool, settings } = deps;
  const language = input.language as PreciseLanguage;
  const indexer = deps.indexers[language]!;
  const limits = settings.limits[language];
  const dir = join(scratch, 'checkout');
  const url = run.source_url ?? '';
  try {
    const token = await loadAccessToken(pool, input.sourceId);
    await checkoutRef({
      url,
      urls: settings.sourceUrls,
      ref: input.commitSha,
      token,
      dir,
      timeoutMs: settings.cloneTimeoutMs,
      signal: hb.signal,
    });
  } catch (err) {
    hb.check();
    if (!(err instanceof CloneError)) throw err;
    const message = `the precise worker could not fetch ${displayUrl(url)} at ${input.commitSha.slice(0, 12)}: ${err.message}`;
    return { failed: await failed(ctx, input, started, 'precise_clone_failed', message, { language }) };
  }
  hb.check();
  const output = join(scratch, 'index.scip');
  // scip-typescript: a changed commit reruns only the projects its changes reach (incremental.ts).
  const key = toolKey(language, indexer.version, settings.allowDependencies);
  const tree = language === 'typescript' ? await treeBlobs(dir, hb.signal, settings.cloneTimeoutMs) : null;
  const prev = tree ? await latestStoredIndex<IndexLayout>(pool, input.sourceId, language, key, input.commitSha) : null;
  const plan = prev && tree ? planRerun(prev, tree) : null;
  let reuse = plan && 'reuse' in plan ? plan.reuse : [];
  if (plan) deps.log.info('precise_rerun', { sync_id: input.syncId, language, since: prev!.commit, ...plan });
  // The earlier index's bytes, read once; gone (retention removed the row in between): everything reruns.
  const earlier =
    prev && reuse.length > 0 ? await storedIndexBytes(pool, input.sourceId, prev.commit, language, key) : null;
  if (earlier === null) reuse = [];
  if (earlier && reuse.length === prev!.layout.projects.length) {
    // No file the indexer reads changed (or none that any program holds): the earlier index is this commit's.
    await writeFile(output, earlier);
    const index = { tree: Object.fromEntries(tree!), layout: prev!.layout };
    const projects = { indexed: 0, reused: reuse.length };
    return { held: { scratch, dir, output, indexerMs: 0, at: Date.now(), index, projects } };
  }
  const layoutFile = join(scratch, 'layout.json');
  const skipFile = join(scratch, 'skip.json');
  let r;
  for (;;) {
    if (reuse.length > 0) await writeFile(skipFile, JSON.stringify(reuse));
    r = await runIndexer({
      language,
      bin: indexer.bin,
      root: dir,
      output,
      scratch,
      limits,
      allowDependencies: settings.allowDependencies,
      version: input.commitSha,
      project: run.source_name ?? 'source',
      goCacheDir: join(settings.workDir, 'go-cache'),
      processes: settings.typescriptProcesses ?? 1,
      usesInCallables: true,
      ...(tree ? { layout: layoutFile } : {}),
      ...(reuse.length > 0 ? { skip: skipFile } : {}),
      signal: hb.signal,
    });
    metrics.seconds.observe({ language }, r.ms / 1000);
    hb.check();
    if (!r.ok || !tree) break;
    const whole = await completeIndex(output, layoutFile, earlier && { bytes: earlier, layout: prev!.layout });
    if (whole !== null) {
      const index = { tree: Object.fromEntries(tree), layout: whole.layout };
      const projects = { indexed: whole.layout.projects.length - whole.reused, reused: whole.reused };
      return { held: { scratch, dir, output, indexerMs: r.ms, at: Date.now(), index, projects } };
    }
    // The earlier index lacks a skipped project: everything reruns.
    reuse = [];
  }
  if (r.ok) return { held: { scratch, dir, output, indexerMs: r.ms, at: Date.now() } };
  const [code, what] =
    r.failure === 'timeout'
      ? ['precise_timeout', `did not finish within ${Math.round(limits.wallMs / 1000)} s`]
      : r.failure === 'memory'
        ? ['precise_memory_limit', `went over its memory limit of ${limits.memoryMb} MB`]
        : ['precise_indexer_failed', `failed (${r.failure})`];
  const message = `${indexer.version} for ${language} ${what}; heuristic edges kept`;
  const context = { language, indexer: indexer.version, output_tail: r.tail.slice(-1000) };
  return { failed: await failed(ctx, input, started, code, message, context) };
}

/** Writes a precise result into the sync's graph in place of the heuristic edges it covers; records the step. */
async function applyResult(
  ctx: PreciseContext,
  input: PreciseIndexInput,
  stored: PreciseResult,
  o: {
    reused: boolean;
    indexer: string;
    indexerMs: number;
    started: number;
    projects?: { indexed: number; reused: number };
  },
): Promise<PreciseLanguageResult> {
  const { pool } = ctx.deps;
  const files = await writtenFileVertices(pool, input.syncId);
  const vertexOf = await symbolVertices(pool, files);
  const labels = await loadGraphLabels(pool);
  return withTransaction(pool, async (tx) => {
    const del = await deleteCovered(tx, stored.covered, files);
    const pairs: Array<[string, string]> = [];
    for (const e of stored.edges) {
      if (e.label === 'calls' || e.label === 'references') continue;
      const s = vertexOf.get(e.from);
      const t = vertexOf.get(e.to);
      if (s !== undefined && t !== undefined) pairs.push([s, t]);
    }
    const hierarchyDeleted = await deleteRelated(tx, pairs, del.removed);
    const w = await writeSymbolEdges(withSavepoints(tx), input, stored.edges, vertexOf, labels);
    const tiers = compareTiers(stored.edges, vertexOf, del.removed);
    const result: PreciseLanguageResult = {
      language: input.language,
      status: o.reused ? 'reused' : 'indexed',
      indexer: o.indexer,
      edges: Object.values(w.edges).reduce((a, b) => a + b, 0),
      hierarchy: w.edges.inherits + w.edges.implements + w.edges.overrides,
      external: stored.external.length,
      replaced: del.callsDeleted + del.referencesDeleted + hierarchyDeleted,
      added: tiers.added,
      removed: del.removed.size,
      confirmed: tiers.confirmed,
      confidence_moved: tiers.moved,
      covered_files: stored.covered.length,
      callables: stored.callables,
      matched: stored.matched,
      dangling: w.dangling,
      indexer_ms: Math.round(o.indexerMs),
      ...(o.projects ? { projects: o.projects } : {}),
      ms: Date.now() - o.started,
    };
    await recordIssues(tx, input.syncId, w.issues);
    await recordStep(tx, input.syncId, preciseStep(input.language), result);
    return result;
  });
}

/**
 * Runs the indexer at the start of the sync (step 1 only) and holds the index on this worker for the sync's
 * preciseIndex, which the sync sends to `hostQueue`. Nothing is held (no `hostQueue`) when the step is recorded
 * already, the commit's result is stored, or the indexer failed (its issue and result are recorded: preciseIndex
 * returns them).
 */
async function preparePrecise(ctx: PreciseContext, input: PreciseIndexInput): Promise<PrecisePrepared> {
  const { deps, held } = ctx;
  const { pool, log, settings } = deps;
  const language = input.language as PreciseLanguage;
  const indexer = deps.indexers[language];
  if (!deps.hostQueue || !indexer) return {};
  if (held.has(heldKey(input.syncId, language))) return { hostQueue: deps.hostQueue };
  if (await recordedResult(pool, input.syncId, preciseStep(language))) return {};
  const key = toolKey(language, indexer.version, settings.allowDependencies);
  if (await storedPreciseResult<PreciseResult>(pool, input.sourceId, input.commitSha, language, key)) return {};
  const started = Date.now();
  const hb = startHeartbeat(Math.max(200, Math.floor(settings.heartbeatTimeoutMs / 4)));
  let scratch: string | null = null;
  try {
    const run = await claimRun(pool, input);
    scratch = await newScratch(ctx, language);
    const made = await makeIndex(ctx, input, run, started, hb, scratch);
    if ('failed' in made) return {};
    held.set(heldKey(input.syncId, language), made.held);
    scratch = null;
    log.info('precise_prepared', { sync_id: input.syncId, language, indexer_ms: Math.round(made.held.indexerMs) });
    return { hostQueue: deps.hostQueue };
  } finally {
    hb.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true }).catch(() => undefined);
  }
}

async function preciseIndex(ctx: PreciseContext, input: PreciseIndexInput): Promise<PreciseLanguageResult> {
  const { deps, held, metrics } = ctx;
  const { pool, log, settings } = deps;
  const { syncId, sourceId, commitSha } = input;
  const language = input.language as PreciseLanguage;
  // This worker's held index for the step, if preparePrecise made one here: taken (removed after this step).
  const mine = held.get(heldKey(syncId, language)) ?? null;
  held.delete(heldKey(syncId, language));
  let scratch: string | null = mine?.scratch ?? null;
  const hb = startHeartbeat(Math.max(200, Math.floor(settings.heartbeatTimeoutMs / 4)));
  try {
    const done = await recordedResult<PreciseLanguageResult>(pool, syncId, preciseStep(language));
    if (done) return done;
    const indexer = deps.indexers[language];
    const started = Date.now();
    const run = await claimRun(pool, input);
    if (!indexer) {
      return await failed(
        ctx,
        input,
        started,
        'precise_indexer_missing',
        `this worker has no indexer for ${language}`,
        {},
      );
    }
    const key = toolKey(language, indexer.version, settings.allowDependencies);
    let result = await storedPreciseResult<PreciseResult>(pool, sourceId, commitSha, language, key);
    const reused = result !== null;
    let indexerMs = 0;
    let projects: Held['projects'];
    if (!result) {
      let index = mine;
      if (!index) {
        scratch = await newScratch(ctx, language);
        const made = await makeIndex(ctx, input, run, started, hb, scratch);
        if ('failed' in made) return made.failed;
        index = made.held;
      }
      indexerMs = index.indexerMs;
      const derived = await deriveIndex(index, await engineDefinitions(pool, syncId, language));
      if ('unreadable' in derived) {
        const message = `the ${language} index could not be read: ${derived.unreadable}`;
        return await failed(ctx, input, started, 'precise_index_unreadable', message, {
          language,
          indexer: indexer.version,
        });
      }
      result = derived;
      const stored = index.index && { ...index.index, bytes: await readFile(index.output) };
      await storePreciseResult(pool, sourceId, commitSha, language, key, result, stored);
      projects = index.projects;
    }
    hb.check();
    const out = await applyResult(ctx, input, result, {
      reused,
      indexer: indexer.version,
      indexerMs,
      started,
      ...(projects ? { projects } : {}),
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

/** Removes the held indexes older than `maxAgeMs` (their sync never asked for them); returns how many. */
async function sweepHeld(ctx: PreciseContext, maxAgeMs = HELD_TTL_MS, now = Date.now()): Promise<number> {
  const { held } = ctx;
  let n = 0;
  for (const [k, h] of held) {
    if (now - h.at < maxAgeMs) continue;
    held.delete(k);
    await rm(h.scratch, { recursive: true, force: true }).catch(() => undefined);
    n++;
  }
  return n;
}

export function createPreciseIndex(deps: PreciseDeps) {
  const ctx: PreciseContext = { deps, metrics: preciseMetrics(), held: new Map() };
  return {
    activities: {
      preparePrecise: (input: PreciseIndexInput) => preparePrecise(ctx, input),
      preciseIndex: (input: PreciseIndexInput) => preciseIndex(ctx, input),
    },
    /** Removes the held indexes older than `maxAgeMs` (their sync never asked for them); returns how many. */
    sweepHeld: (maxAgeMs = HELD_TTL_MS, now = Date.now()) => sweepHeld(ctx, maxAgeMs, now),
  };
}
