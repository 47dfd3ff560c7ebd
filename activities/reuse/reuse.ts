/**
 * Incremental syncs: what a sync may take over from its source's previous completed sync.
 *
 * A file is reused when its path and content hash equal those of a file record of the previous completed sync whose
 * analysis was made by the same engine with the same options and embedding endpoint (the analysis key), and whose
 * file vector exists when embeddings are on (a vector the previous sync could not get is not carried as empty: the
 * file is analysed again, which yields its embedding text). A reused file is not parsed, chunked or embedded: the
 * new sync's file record points at the same shared content (schema V12), and only its imports are resolved again
 * against the new tree, so depends_on equals a full sync's even where files were added, removed or renamed.
 *
 * A cached summary is carried only when the file and its graph neighbourhood are unchanged: the same depends_on
 * edges in both directions (other end's path and weight), and every file at the other end has the same content.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Queryable } from '../../lib/db.ts';
import { dependsOnByPath, previousCompletedSync, previousFileRows } from '../store/index.ts';
import type { Dependency, EngineIssue, ReusableFile } from '../../engine/types.ts';

export interface PreviousFile extends ReusableFile {
  file_path: string;
  contentId: string;
  name: string;
  type: string;
  domain: string;
  binary: boolean;
  /** How many symbols the file has (its vertices are written from the stored rows: reused-graph.ts). */
  symbols: number;
  issues: EngineIssue[];
  chunks: number;
  /** Its chunks that have no vector (the model host failed them before): embedChunks embeds them in this sync. */
  chunksWithoutVector: number;
  description: string | null;
  descriptionGeneratedAt: string | null;
}

export interface ReusePlan {
  /** The previous completed sync, when there is one and incremental syncs are on. */
  previousSyncId: string | null;
  /** The commit it read (its stats.commit_sha), when known. */
  previousCommit: string | null;
  /** Files that may be reused, by path (when their content hash still matches). */
  reusable: Map<string, PreviousFile>;
  /** Every path of the previous sync with its content hash (to count changed, added and removed files). */
  previousHashes: Map<string, string>;
  /** Why the sync is a full one, when it is. */
  fullReason?: 'disabled' | 'no_previous_sync';
}

let engineDigest: string | undefined;

/** SHA-256 over the engine's own files (code, queries) and the lock file (grammar versions): any change to them. */
function engineVersion(): string {
  if (engineDigest !== undefined) return engineDigest;
  const root = new URL('../../engine/', import.meta.url).pathname;
  const hash = createHash('sha256');
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(ts|mjs|scm)$/.test(e.name)) hash.update(p.slice(root.length)).update(readFileSync(p));
    }
  };
  walk(root);
  try {
    hash.update(readFileSync(new URL('../../package-lock.json', import.meta.url)));
  } catch {
    // A deployment without the lock file: the engine's own files still name the version.
  }
  engineDigest = hash.digest('hex');
  return engineDigest;
}

/**
 * The analysis key of this worker: engine version, analysis options and the embedding endpoint's identity. An
 * analysis without symbol facts (`symbol_graph: false`) has a key of its own, so that a later sync with the symbol
 * graph does not reuse it (its facts would be missing); with them the key is the one it always was.
 */
export function analysisKey(o: { maxFileBytes: number; embeddingIdentity: string; symbolGraph?: boolean }): string {
  return createHash('sha256')
    .update(
      `${engineVersion()}\n${o.maxFileBytes}\n${o.embeddingIdentity}${o.symbolGraph === false ? '\nno-symbol-graph' : ''}`,
    )
    .digest('hex')
    .slice(0, 32);
}

/** `config.symbol_graph = false` leaves the symbol graph out of the sync; anything else (absent included) keeps it. */
export function symbolGraphEnabled(config: Record<string, unknown>): boolean {
  return config.symbol_graph !== false;
}

/** `config.incremental = false` forces a full sync; anything else (absent included) allows reuse. */
export function incrementalEnabled(config: Record<string, unknown>): boolean {
  return config.incremental !== false;
}

/** The sync a run compares with: the source's previous completed sync and the commit it read. */
export interface PreviousSync {
  previousSyncId: string | null;
  previousCommit: string | null;
  fullReason?: 'disabled' | 'no_previous_sync';
}

export async function findPreviousSync(
  db: Queryable,
  o: {
    syncId: string;
    sourceId: string;
    incremental: boolean;
    /** The sync an earlier attempt of this run compared with (step ledger), when there was one. */
    previousSyncId?: string | null;
  },
): Promise<PreviousSync> {
  const none = { previousSyncId: null, previousCommit: null };
  if (!o.incremental) return { ...none, fullReason: 'disabled' };
  if (o.previousSyncId === null) return { ...none, fullReason: 'no_previous_sync' };
  const prev = await previousCompletedSync(db, o);
  if (!prev) return { ...none, fullReason: 'no_previous_sync' };
  return { previousSyncId: prev.id, previousCommit: prev.commit || null };
}

/** The files of the previous sync that may be reused (`key`: this worker's analysis key). */
export async function loadReusePlan(
  db: Queryable,
  o: { key: string; embeddingsOn: boolean },
  previous: PreviousSync,
): Promise<ReusePlan> {
  const { previousSyncId, previousCommit } = previous;
  if (!previousSyncId) {
    return {
      previousSyncId: null,
      previousCommit: null,
      reusable: new Map(),
      previousHashes: new Map(),
      ...(previous.fullReason ? { fullReason: previous.fullReason } : {}),
    };
  }
  const rows = await previousFileRows(db, previousSyncId);
  const reusable = new Map<string, PreviousFile>();
  const previousHashes = new Map<string, string>();
  for (const r of rows) {
    previousHashes.set(r.file_path, r.content_hash);
    if (r.analysis_key !== o.key) continue;
    if (o.embeddingsOn && !r.has_vector) continue;
    reusable.set(r.file_path, {
      file_path: r.file_path,
      contentId: r.content_id,
      content_hash: r.content_hash,
      language: r.language,
      imports: r.imports,
      name: r.name,
      type: r.type,
      domain: r.domain,
      binary: r.binary,
      symbols: r.symbols,
      issues: r.issues,
      chunks: r.chunks,
      chunksWithoutVector: r.chunks_without_vector,
      description: r.description,
      descriptionGeneratedAt: r.description_generated_at ? r.description_generated_at.toISOString() : null,
    });
  }
  return { previousSyncId, previousCommit, reusable, previousHashes };
}

/** depends_on edges of a sync as `from → to` with their summed weight (the rule writeDependsOn applies). */
export type EdgeMap = Map<string, Map<string, number>>;

export function edgeMap(
  files: Iterable<{ file_path: string; dependencies: readonly Dependency[] }>,
  paths: ReadonlySet<string>,
): EdgeMap {
  const out: EdgeMap = new Map();
  for (const f of files) {
    for (const d of f.dependencies) {
      if (d.target_path === f.file_path || !paths.has(d.target_path)) continue;
      let m = out.get(f.file_path);
      if (!m) out.set(f.file_path, (m = new Map<string, number>()));
      m.set(d.target_path, (m.get(d.target_path) ?? 0) + d.weight);
    }
  }
  return out;
}

/** The previous sync's depends_on edges, by path (read from the graph it shares, when it shares one: V50). */
export async function loadEdges(db: Queryable, syncId: string): Promise<EdgeMap> {
  const rows = await dependsOnByPath(db, syncId);
  const out: EdgeMap = new Map();
  for (const r of rows) {
    let m = out.get(r.s);
    if (!m) out.set(r.s, (m = new Map<string, number>()));
    m.set(r.t, r.w ?? 1);
  }
  return out;
}

/** A file's neighbourhood as one comparable string: edges both ways with weights and the other ends' contents. */
function neighbourhood(path: string, edges: EdgeMap, incoming: EdgeMap, hashes: ReadonlyMap<string, string>): string {
  const parts: string[] = [];
  for (const [t, w] of edges.get(path) ?? []) parts.push(`out ${t} ${w} ${hashes.get(t) ?? ''}`);
  for (const [s, w] of incoming.get(path) ?? []) parts.push(`in ${s} ${w} ${hashes.get(s) ?? ''}`);
  return parts.sort().join('\n');
}

function reverse(edges: EdgeMap): EdgeMap {
  const out: EdgeMap = new Map();
  for (const [s, m] of edges) {
    for (const [t, w] of m) {
      let r = out.get(t);
      if (!r) out.set(t, (r = new Map<string, number>()));
      r.set(s, w);
    }
  }
  return out;
}

/**
 * Of the reused files that carried a summary, those whose neighbourhood differs between the previous sync and this
 * one: their summary must not be carried.
 */
export function staleSummaries(o: {
  candidates: readonly string[];
  before: EdgeMap;
  beforeHashes: ReadonlyMap<string, string>;
  after: EdgeMap;
  afterHashes: ReadonlyMap<string, string>;
}): string[] {
  if (o.candidates.length === 0) return [];
  const inBefore = reverse(o.before);
  const inAfter = reverse(o.after);
  return o.candidates.filter(
    (p) => neighbourhood(p, o.before, inBefore, o.beforeHashes) !== neighbourhood(p, o.after, inAfter, o.afterHashes),
  );
}
