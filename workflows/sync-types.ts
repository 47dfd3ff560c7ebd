/** Inputs and results of the sync workflow and its activities: ids, counts and durations only, never contents. */

/** The sync workflow's input (one type for the workflow, its starters and its activities). */
export type SyncWorkflowInput = SyncIds;

export type SyncEndStatus = 'completed' | 'failed' | 'cancelled';

export interface SyncRunOutcome {
  syncId: string;
  /** `skipped`: the run was not pending when the workflow reached it (already ended, cleaned or purged). */
  status: SyncEndStatus | 'skipped';
  error?: string;
}

/** The outcome of the last run the workflow handled, and every run it handled (a retry signal can add runs). */
export interface SyncWorkflowResult extends SyncRunOutcome {
  runs: SyncRunOutcome[];
}

/** The ids every step of a sync takes: the one input type of the workflow and of its activities. */
export interface SyncIds {
  syncId: string;
  sourceId: string;
}

/** Worker-side settings the workflow needs for its activity options (returned by beginSync, so recorded). */
export interface SyncActivitySettings {
  heartbeatTimeoutMs: number;
  /** Attempts of the long activities (a worker crash costs one). */
  maxAttempts: number;
  /** Upper bound of one long activity attempt. */
  attemptTimeoutMs: number;
  /**
   * How long a step may wait for the worker that holds the clone to pick it up; past it that worker is taken as
   * gone and the sync clones again elsewhere.
   */
  hostQueueTimeoutMs: number;
  /**
   * Whether this deployment plans the precise tier (issue 29; SYNC_PRECISE, default on): off, syncs run no precise
   * step and record no issue about it. Absent (a worker from before the tier): off.
   */
  precise?: boolean;
}

export type BeginSyncResult =
  | {
      proceed: true;
      embeddings: boolean;
      /** False when the run's config says `symbol_graph: false` (absent in histories from before the switch). */
      symbolGraph?: boolean;
      settings: SyncActivitySettings;
      /** For activity summaries: `owner/name` and the ref the run syncs. */
      source: string;
      ref: string;
    }
  | {
      proceed: false;
      status: SyncEndStatus | 'skipped';
      error?: string;
      /** The run's status in the database (absent: the run is gone, or a worker that did not say). */
      runStatus?: string;
    };

export interface PhaseDurations {
  cloning?: number;
  parsing?: number;
  graphing?: number;
  embedding_summaries?: number;
  embedding_chunks?: number;
  /** The precise tier (issue 29): plan and every language's step, beside the embedding steps. */
  precise?: number;
  finalizing?: number;
}

export interface CloneInput extends SyncIds {
  /** First clone of the run: remove whatever an earlier attempt or run left. False when resuming. */
  fresh: boolean;
  /** When resuming: the commit the run already started on (the ref may have moved since). */
  commitSha: string | null;
}

export interface CloneResult {
  /** The task queue of the worker holding the clone: every step that needs the clone goes there. */
  hostQueue: string;
  commitSha: string;
  commitAt: string;
  files: number;
  batches: number;
  /** Where each batch starts among the files, and the number of files last (absent: every BATCH_FILES files). */
  bounds?: number[];
  /**
   * How many batch writes may run at once (absent: one). Two for a tree of mostly unchanged files, whose writes are
   * the database's work alone (activities/sync/helpers/workspace.ts batchPlan).
   */
  writeConcurrency?: number;
  /**
   * How the worker came by the tree's walk (files and import index): `walked` (the tree was walked), `kept` (the kept
   * clone's walk of the same commit), `refreshed` (the kept clone's walk with the sizes of the files whose content
   * alone changed read again). Shown to operators; the workflow does not read it.
   */
  walk?: 'walked' | 'kept' | 'refreshed';
  /**
   * The languages of the tree's files by extension (plugin ids, sorted): the precise tier is planned from them right
   * after the clone, before the parse (absent in results of workers before that change).
   */
  languages?: string[];
}

export interface BatchInput extends SyncIds {
  batch: number;
}

export interface ParseBatchResult {
  files: number;
  chunks: number;
  symbols: number;
}

export interface WriteBatchResult {
  files: number;
  binaryFiles: number;
  chunks: number;
  symbols: number;
  fileVertices: number;
  symbolVertices: number;
  definesEdges: number;
  issues: number;
  /**
   * What the embedding steps will find to do for this batch (absent in results recorded before they were counted):
   * files whose embedding text was recorded (analysed files), and chunks without a vector (new chunks, and those of
   * reused contents whose vector the model host could not give before).
   */
  embedInputs?: number;
  chunksToEmbed?: number;
}

export interface ResolveResult {
  dependsOnEdges: number;
  /** Carried summaries dropped because the file's neighbourhood changed (issue 12). */
  summariesDropped?: number;
}

/** What resolveSymbols wrote (issue 28). */
export interface SymbolsResult {
  /** Files with symbol facts given to the resolver. */
  files: number;
  edges: { calls: number; inherits: number; implements: number; overrides: number; references: number };
  /** Uses the resolver did not guess (kept per file), and the files holding some. */
  unresolved: number;
  unresolvedFiles: number;
  /** Uses resolved to outside the repository (an external import, a builtin): neither edges nor unresolved. */
  external: number;
  /** Edges whose end had no Symbol vertex in the sync (a vertex the graph writer rejected). */
  dangling: number;
  /** Set when the sync held exactly its previous sync's files and that sync's symbol graph was copied. */
  copiedFrom?: string;
  /**
   * Set when the worker holding the clone resolved while the batches were written and the last write wrote the graph
   * (activities/sync/helpers/early-symbols.ts): the step found it recorded.
   */
  resolvedWhileWriting?: true;
}

/** One language the precise tier runs (planPrecise): the queue of a live precise worker that has its indexer. */
export interface PrecisePlanItem {
  language: string;
  indexer: string;
  queue: string;
  /** Upper bound of the step: the worker's wall limit for the language plus the fetch (from its declaration). */
  timeoutMs: number;
}

export interface PrecisePlan {
  run: PrecisePlanItem[];
  /** Languages present that no live precise worker can index (one sync issue each). */
  skipped: string[];
}

export interface PreciseIndexInput extends SyncIds {
  language: string;
  commitSha: string;
}

/**
 * What preparePrecise (the indexer run at the start of the sync) left for the sync's preciseIndex: the task queue of
 * the precise worker holding the index, or nothing (no index held: preciseIndex goes to the language's queue).
 */
export interface PrecisePrepared {
  hostQueue?: string;
}

/** planPrecise's input: the languages the clone found (by extension), or none (read from the sync's files). */
export interface PrecisePlanInput extends SyncIds {
  languages?: string[];
}

export interface PreciseNoteInput extends SyncIds {
  language: string;
  message: string;
}

/** What one language's precise step did (issue 29; SyncStats.precise). */
export interface PreciseLanguageResult {
  language: string;
  /** indexed; reused (the commit's stored result); failed (a sync issue says why); skipped (no worker). */
  status: 'indexed' | 'reused' | 'failed' | 'skipped';
  reason?: string;
  indexer?: string;
  /** Edges written with provenance scip (calls + references). */
  edges: number;
  /** Uses of symbols outside the repository kept with their package monikers. */
  external: number;
  /** Of `edges`, the hierarchy edges (inherits, implements, overrides) from the index's relationships. */
  hierarchy?: number;
  /** Heuristic edges deleted (those the index covers). */
  replaced: number;
  /** Against the heuristic tier: edges only the indexer has, only the heuristics had, and both (confidence -> 1). */
  added: number;
  removed: number;
  confirmed: number;
  /** Mean confidence gained by the confirmed edges (1 - their mean heuristic confidence). */
  confidence_moved?: number;
  covered_files?: number;
  callables?: number;
  matched?: number;
  dangling?: number;
  indexer_ms?: number;
  /**
   * scip-typescript: tsconfig projects this sync's run indexed and those whose documents it took unchanged from an
   * earlier commit's index (none of their program files changed: activities/precise/incremental.ts).
   */
  projects?: { indexed: number; reused: number };
  ms: number;
}

export interface EmbedInput extends SyncIds {
  embeddings: boolean;
}

export interface EmbedResult {
  embedded: number;
  failed: number;
  skipped: boolean;
}

export interface EndSyncInput extends SyncIds {
  status: 'failed' | 'cancelled';
  error: string;
}

export interface EndSyncResult {
  changed: boolean;
  /** The run's status in the database afterwards (absent: the run is gone, or a worker that did not say). */
  status?: string;
}

/** A retry signal the workflow accepted in form: queue the run behind the run in progress (position 1 = next). */
export interface QueueRetryInput extends SyncIds {
  position: number;
  /** The run in progress, if any. */
  behind: string | null;
}

export type QueueRetryResult = { queued: true } | { queued: false; reason: string };

/** A signal the workflow ignores, recorded as a `signal_rejected` event. */
export interface RejectedSignalInput {
  sourceId: string;
  /** The run in progress when it came, if any. */
  syncId: string | null;
  signal: string;
  /** The input as JSON (signalInputPreview). */
  input: string;
  reason: string;
}

export interface FinalizeInput extends SyncIds {
  stats: SyncStats;
  startedAtMs: number;
}

/** What the `progress` query answers: the step being run, and units done of total in it. */
export interface SyncProgress {
  syncId: string | null;
  phase: string;
  done: number;
  total: number;
}

export interface SyncStats {
  commit_sha: string;
  files: number;
  binary_files: number;
  chunks: number;
  symbols: number;
  vertices: number;
  /** depends_on and defines, and the symbol graph's labels (issue 28) when the sync resolved symbols. */
  edges: { depends_on: number; defines: number } & Partial<SymbolsResult['edges']>;
  /** The symbol graph's uses not turned into edges (issue 28): unresolved (kept per file) and external. */
  symbol_uses?: { unresolved: number; external: number };
  /** The precise tier per language (issue 29), when the sync ran its step. */
  precise?: Record<string, PreciseLanguageResult>;
  embeddings: {
    files_embedded: number;
    files_failed: number;
    chunks_embedded: number;
    chunks_failed: number;
    skipped: boolean;
  };
  /** Added by finalizeSync (issue 12): what the sync reused from its source's previous completed sync. */
  incremental?: IncrementalStats;
  durations_ms: PhaseDurations & { total?: number };
}

/** How a sync relates to its source's previous completed sync (activities/reuse/reuse.ts). */
export interface IncrementalStats {
  /** The sync files were compared with; null for a full sync. */
  previous_sync_id: string | null;
  /** True when nothing could be reused by design: no previous completed sync, or `config.incremental = false`. */
  full: boolean;
  reason?: string;
  /** Files whose path and content equal the previous sync's and whose analysis was taken over (not parsed). */
  reused: number;
  /** Unchanged files analysed again (another engine version, or a vector the previous sync lacked). */
  unchanged_reanalysed: number;
  changed: number;
  added: number;
  removed: number;
  /** Cached summaries taken over (file and neighbourhood unchanged) and dropped (neighbourhood changed). */
  summaries_carried: number;
  summaries_dropped: number;
}
