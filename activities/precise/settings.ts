/**
 * The precise worker's settings (temporal/precise-worker-config.ts reads them from the environment; docs/precise.md).
 * Per language: a wall limit and a memory limit. Dependency download is off unless PRECISE_ALLOW_DEPENDENCIES says so.
 */
import type { IndexerLimits, PreciseLanguage } from './indexers.ts';
import type { SourceUrlPolicy } from '../../lib/source-url.ts';

export interface PreciseSettings {
  /** Scratch space of the worker: one folder per run (removed after it), and Go's module and build caches. */
  workDir: string;
  limits: Record<PreciseLanguage, IndexerLimits>;
  /** May indexers download the project's dependencies (only scip-go does: Go modules)? Default false. */
  allowDependencies: boolean;
  heartbeatTimeoutMs: number;
  cloneTimeoutMs: number;
  /** The transports and hosts the worker fetches from (SOURCE_URL_SCHEMES / SOURCE_URL_HOSTS, as the sync worker). */
  sourceUrls: SourceUrlPolicy;
  /**
   * scip-typescript's processes per run (PRECISE_TYPESCRIPT_PROCESSES, default 1): each indexes a part of every
   * project's files. The memory limit is the whole run's (the heap is divided among them).
   */
  typescriptProcesses?: number;
}

export const PRECISE_LANGUAGES: readonly PreciseLanguage[] = ['typescript', 'python', 'go', 'java'];

/** The task queue of one language's precise steps: served only by workers that have its indexer. */
export function preciseQueue(prefix: string, language: string): string {
  return `${prefix}-${language}`;
}

export const DEFAULT_PRECISE_QUEUE_PREFIX = 'precise';
