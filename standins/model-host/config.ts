/** Environment variables of the model-host stand-in (documented in docs/standins.md). */
import { loadConfig, type VarSpec } from '../../lib/config.ts';

export const modelHostVars = {
  MODEL_HOST_BIND: { type: 'string', default: '127.0.0.1' },
  MODEL_HOST_EMBEDDINGS_PORT: { type: 'int', default: 8101, min: 0, max: 65535 },
  MODEL_HOST_CHAT_PORT: { type: 'int', default: 8102, min: 0, max: 65535 },
  EMBEDDING_DIM: { type: 'int', default: 896, min: 8, max: 16000 },
  /** `lexical`: the fast deterministic stand-in (tests); `minilm`: all-MiniLM-L6-v2 (scripts/stack/minilm.sh). */
  MODEL_HOST_EMBEDDING_MODEL: { type: 'enum', values: ['lexical', 'minilm'], default: 'lexical' },
  /** The Python that runs the MiniLM worker (the environment scripts/stack/minilm.sh makes). */
  MODEL_HOST_PYTHON: { type: 'string', default: '' },
  /** Per-input limit of the embedding model, in estimated tokens (4 characters each). */
  MODEL_HOST_EMBEDDING_CONTEXT_TOKENS: { type: 'int', default: 32768, min: 1 },
  /** Context window of the chat model, in estimated tokens (4 characters each): prompt + max_tokens must fit. */
  MODEL_HOST_CHAT_CONTEXT_TOKENS: { type: 'int', default: 60000, min: 1 },
  /** When set, every model request must carry `Authorization: Bearer <LLM_API_KEY>`. */
  LLM_API_KEY: { type: 'string', default: '', secret: true },
  MODEL_HOST_LATENCY_MS: { type: 'int', default: 0, min: 0, max: 600000 },
  MODEL_HOST_FAILURE_RATE: { type: 'number', default: 0, min: 0, max: 1 },
  MODEL_HOST_FAILURE_MODE: { type: 'enum', values: ['status', 'reset'], default: 'status' },
  MODEL_HOST_FAILURE_SEED: { type: 'int', default: 1, min: 0 },
} as const satisfies Record<string, VarSpec>;

export type FailureMode = 'status' | 'reset';

/** Injected faults, per endpoint. */
export interface Faults {
  /** Added before every model response (not /health). */
  latencyMs: number;
  /** Probability in [0, 1] that a model request fails. */
  failureRate: number;
  /** `status`: HTTP 503 with an OpenAI-style error body; `reset`: the connection is destroyed without a response. */
  failureMode: FailureMode;
}

export interface ModelHostConfig {
  host: string;
  embeddingPort: number;
  /** Equal to embeddingPort (and non-zero): one listener serves both APIs. */
  chatPort: number;
  dim: number;
  /** Which embedding model answers: the lexical stand-in, or a real model (real-model.ts). */
  embeddingModel: 'lexical' | 'minilm';
  python: string;
  embeddingContextTokens: number;
  chatContextTokens: number;
  apiKey: string;
  faults: Faults;
  /** Seed of the generator that decides injected failures, so a failure pattern repeats run to run. */
  failureSeed: number;
}

export const defaultModelHostConfig: ModelHostConfig = {
  host: '127.0.0.1',
  embeddingPort: 0,
  chatPort: 0,
  dim: 896,
  embeddingModel: 'lexical',
  python: '',
  embeddingContextTokens: 32768,
  chatContextTokens: 60000,
  apiKey: '',
  faults: { latencyMs: 0, failureRate: 0, failureMode: 'status' },
  failureSeed: 1,
};

export function modelHostConfigFromEnv(env: Record<string, string | undefined> = process.env): ModelHostConfig {
  const c = loadConfig(modelHostVars, env);
  return {
    host: c.MODEL_HOST_BIND,
    embeddingPort: c.MODEL_HOST_EMBEDDINGS_PORT,
    chatPort: c.MODEL_HOST_CHAT_PORT,
    dim: c.EMBEDDING_DIM,
    embeddingModel: c.MODEL_HOST_EMBEDDING_MODEL as 'lexical' | 'minilm',
    python: c.MODEL_HOST_PYTHON,
    embeddingContextTokens: c.MODEL_HOST_EMBEDDING_CONTEXT_TOKENS,
    chatContextTokens: c.MODEL_HOST_CHAT_CONTEXT_TOKENS,
    apiKey: c.LLM_API_KEY,
    faults: {
      latencyMs: c.MODEL_HOST_LATENCY_MS,
      failureRate: c.MODEL_HOST_FAILURE_RATE,
      failureMode: c.MODEL_HOST_FAILURE_MODE as FailureMode,
    },
    failureSeed: c.MODEL_HOST_FAILURE_SEED,
  };
}
