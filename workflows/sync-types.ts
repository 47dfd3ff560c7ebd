/** Inputs and results of the sync workflow and its activities: ids, counts and durations only, never contents. */

export interface SyncWorkflowInput {
  syncId: string;
  sourceId: string;
}

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

/** Worker-side settings the workflow needs for its activity options (returned by beginSync, so recorded). */
export interface SyncActivitySettings {
  heartbeatTimeoutMs: number;
  /** Attempts of the long activities (a worker crash costs one). */
  maxAttempts: number;
  /** Upper bound of one long activity attempt. */
  attemptTimeoutMs: number;
}

export type BeginSyncResult =
  | { proceed: true; embeddings: boolean; settings: SyncActivitySettings }
  | { proceed: false; status: SyncEndStatus | 'skipped'; error?: string };

export interface PhaseDurations {
  cloning?: number;
  parsing?: number;
  graphing?: number;
  embedding_summaries?: number;
  embedding_chunks?: number;
  finalizing?: number;
}

/** How a sync relates to its source's previous completed sync (activities/sync/reuse.ts). */
export interface IncrementalStats {
  /** The sync files were compared with; null for a full sync. */
  previous_sync_id: string | null;
  /** True when nothing was reused by design: no previous completed sync, or `config.incremental = false`. */
  full: boolean;
  reason?: string;
  /** Files whose path and content equal the previous sync's and whose analysis was taken over (not parsed). */
  reused: number;
  /** Unchanged files analysed again (another engine version, or a vector the previous sync lacked). */
  unchanged_reanalysed: number;
  changed: number;
  added: number;
  removed: number;
  summaries_carried: number;
  summaries_dropped: number;
}

export interface IngestResult {
  commitSha: string;
  files: number;
  binaryFiles: number;
  chunks: number;
  symbols: number;
  vertices: number;
  edges: { depends_on: number; defines: number };
  fileEmbeddings: { embedded: number; failed: number; skipped: boolean };
  incremental?: IncrementalStats;
  durationsMs: PhaseDurations;
}

export interface EmbedChunksResult {
  embedded: number;
  failed: number;
  skipped: boolean;
  durationsMs: PhaseDurations;
}

export interface SyncStats {
  commit_sha: string;
  files: number;
  binary_files: number;
  chunks: number;
  symbols: number;
  vertices: number;
  edges: { depends_on: number; defines: number };
  embeddings: {
    files_embedded: number;
    files_failed: number;
    chunks_embedded: number;
    chunks_failed: number;
    skipped: boolean;
  };
  incremental?: IncrementalStats;
  durations_ms: PhaseDurations & { total?: number };
}
