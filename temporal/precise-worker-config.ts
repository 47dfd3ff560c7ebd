/**
 * The precise worker's environment (issue 29; docs/precise.md), validated once at start-up. Limits are per language:
 * PRECISE_<LANGUAGE>_WALL_SECONDS / PRECISE_<LANGUAGE>_MEMORY_MB override PRECISE_WALL_SECONDS / PRECISE_MEMORY_MB.
 */
import { databaseVars, loadConfig, type ConfigOf, type VarSpec } from '../lib/config.ts';
import { sourceUrlPolicy, sourceUrlVars } from '../lib/source-url.ts';
import type { PreciseSettings } from '../activities/precise/settings.ts';
import { PRECISE_LANGUAGES } from '../activities/precise/settings.ts';
import type { PreciseLanguage } from '../activities/precise/indexers.ts';

const limitVars = Object.fromEntries(
  PRECISE_LANGUAGES.flatMap((l) => [
    [`PRECISE_${l.toUpperCase()}_WALL_SECONDS`, { type: 'int', default: 0, min: 0, max: 24 * 3600 }],
    [`PRECISE_${l.toUpperCase()}_MEMORY_MB`, { type: 'int', default: 0, min: 0, max: 1024 * 1024 }],
  ]),
) as Record<string, { type: 'int'; default: number; min: number; max: number }>;

export const preciseWorkerVars = {
  ...databaseVars,
  ...sourceUrlVars,
  TEMPORAL_ADDRESS: { type: 'string', default: '127.0.0.1:7233' },
  TEMPORAL_NAMESPACE: { type: 'string', default: 'default' },
  /** Each language's steps go to `<prefix>-<language>` (precise-typescript, precise-python, precise-go). */
  PRECISE_QUEUE_PREFIX: { type: 'string', default: 'precise' },
  /** Languages this worker serves, comma-separated (typescript, python, go, java); empty: every installed indexer. */
  PRECISE_LANGUAGES: { type: 'string', default: '' },
  PRECISE_WORK_DIR: { type: 'string', default: '.stack/precise' },
  PRECISE_WALL_SECONDS: { type: 'int', default: 900, min: 1, max: 24 * 3600 },
  PRECISE_MEMORY_MB: { type: 'int', default: 4096, min: 64, max: 1024 * 1024 },
  /** May an indexer download the project's dependencies (scip-go: Go modules from GOPROXY)? Off by default. */
  PRECISE_ALLOW_DEPENDENCIES: { type: 'bool', default: false },
  /** Precise steps this worker runs at once (indexers are CPU- and memory-heavy). */
  PRECISE_MAX_CONCURRENT: { type: 'int', default: 1, min: 1, max: 64 },
  /**
   * scip-typescript's processes per run: each indexes a part of the files (docs/precise.md). One by default: one
   * process already keeps ~1.4 cores busy (V8's collector), and on 2 cores two were slower (hono 16.7 s against 11.6).
   */
  PRECISE_TYPESCRIPT_PROCESSES: { type: 'int', default: 1, min: 1, max: 16 },
  SYNC_HEARTBEAT_TIMEOUT_SECONDS: { type: 'number', default: 60, min: 1, max: 3600 },
  SYNC_CLONE_TIMEOUT_SECONDS: { type: 'int', default: 600, min: 1, max: 24 * 3600 },
  METRICS_PORT: { type: 'int', default: 8094, min: 0, max: 65535 },
  METRICS_HOST: { type: 'string', default: '0.0.0.0' },
  ...limitVars,
} as const satisfies Record<string, VarSpec>;

export type PreciseWorkerConfig = ConfigOf<typeof preciseWorkerVars> & Record<string, unknown>;

export function loadPreciseWorkerConfig(env: Record<string, string | undefined> = process.env): PreciseWorkerConfig {
  return loadConfig(preciseWorkerVars, env);
}

export function preciseSettings(c: PreciseWorkerConfig): PreciseSettings {
  const limit = (l: PreciseLanguage) => {
    const wall = Number(c[`PRECISE_${l.toUpperCase()}_WALL_SECONDS`] ?? 0) || c.PRECISE_WALL_SECONDS;
    const mem = Number(c[`PRECISE_${l.toUpperCase()}_MEMORY_MB`] ?? 0) || c.PRECISE_MEMORY_MB;
    return { wallMs: wall * 1000, memoryMb: mem };
  };
  return {
    workDir: c.PRECISE_WORK_DIR,
    limits: { typescript: limit('typescript'), python: limit('python'), go: limit('go'), java: limit('java') },
    allowDependencies: c.PRECISE_ALLOW_DEPENDENCIES,
    heartbeatTimeoutMs: Math.round(c.SYNC_HEARTBEAT_TIMEOUT_SECONDS * 1000),
    cloneTimeoutMs: c.SYNC_CLONE_TIMEOUT_SECONDS * 1000,
    sourceUrls: sourceUrlPolicy(c),
    typescriptProcesses: c.PRECISE_TYPESCRIPT_PROCESSES,
  };
}
