/**
 * The graph component's environment, validated once at start-up (the error names the bad variable).
 */
import { databaseVars, embeddingVars, loadConfig, type ConfigOf, type VarSpec } from '../lib/config.ts';
import { ConfigError } from '../lib/errors.ts';
import { sourceUrlVars } from '../lib/source-url.ts';

export const graphVars = {
  ...databaseVars,
  ...embeddingVars,
  ...sourceUrlVars,
  APP_PORT: { type: 'int', default: 8082, min: 0, max: 65535 },
  APP_HOST: { type: 'string', default: '0.0.0.0' },
  LOG_LEVEL: { type: 'enum', values: ['debug', 'info', 'warning', 'error'], default: 'info' },
  GRAPH_QUERY_TIMEOUT_SECONDS: { type: 'number', default: 60, min: 0.01, max: 3600 },
  INGESTION_SERVICE_URL: { type: 'url', default: 'http://127.0.0.1:8081' },
  INGESTION_TIMEOUT_SECONDS: { type: 'number', default: 30, min: 0.1, max: 600 },
  EMBEDDING_URL: { type: 'url', default: 'http://127.0.0.1:8101/v1/embeddings' },
  EMBEDDING_MODEL: { type: 'string', default: 'embeddings' },
  DENSE_LLM_URL: { type: 'url', default: 'http://127.0.0.1:8102/v1/chat/completions' },
  DENSE_LLM_MODEL: { type: 'string', default: 'dense' },
  DENSE_LLM_TIMEOUT_SECONDS: { type: 'number', default: 120, min: 1, max: 3600 },
  LLM_API_KEY: { type: 'string', default: '', secret: true },
  SUMMARY_MAX_TOKENS: { type: 'int', default: 400, min: 1, max: 100_000 },
  SUMMARY_TOTAL_BUDGET_CHARS: { type: 'int', default: 100_000, min: 1000, max: 10_000_000 },
  SUMMARY_FILE_BUDGET_RATIO: { type: 'number', default: 0.88, min: 0, max: 1 },
  SUMMARY_NEIGHBOR_BUDGET_RATIO: { type: 'number', default: 0.1, min: 0, max: 1 },
  SUMMARY_NEIGHBOR_CHARS: { type: 'int', default: 1200, min: 0, max: 1_000_000 },
  SUMMARY_EDGE_NEIGHBORS: { type: 'int', default: 10, min: 0, max: 1000 },
  SUMMARY_CONCURRENCY: { type: 'int', default: 4, min: 1, max: 100 },
  SUMMARY_QUEUE_SIZE: { type: 'int', default: 64, min: 0, max: 100_000 },
  SUMMARY_QUEUE_TIMEOUT_SECONDS: { type: 'number', default: 60, min: 0.1, max: 3600 },
} as const satisfies Record<string, VarSpec>;

export type GraphConfig = ConfigOf<typeof graphVars>;

export function loadGraphConfig(env: Record<string, string | undefined> = process.env): GraphConfig {
  const config = loadConfig(graphVars, env);
  if (config.SUMMARY_FILE_BUDGET_RATIO + config.SUMMARY_NEIGHBOR_BUDGET_RATIO > 1) {
    throw new ConfigError(
      'SUMMARY_NEIGHBOR_BUDGET_RATIO',
      'SUMMARY_FILE_BUDGET_RATIO + SUMMARY_NEIGHBOR_BUDGET_RATIO must be at most 1',
    );
  }
  return config;
}
