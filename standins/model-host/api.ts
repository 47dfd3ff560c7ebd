/**
 * Request validation and responses of the two OpenAI-compatible endpoints, without the HTTP plumbing.
 * Shapes follow OpenAI's API as served by vLLM: `POST /v1/embeddings` and `POST /v1/chat/completions`.
 */
import { createHash } from 'node:crypto';
import { embedText, estimateTokens, prepareInput, type EmbedMode } from './embed.ts';
import { composeSummary, readPrompt, type ChatMessage } from './chat.ts';
import { badRequest, isRecord } from './http.ts';

export interface EmbeddingsOutcome {
  body: {
    object: 'list';
    data: { object: 'embedding'; index: number; embedding: number[] | string }[];
    model: string;
    usage: { prompt_tokens: number; total_tokens: number };
  };
  model: string;
  modes: EmbedMode[];
  unprefixed: number;
}

function contextError(limit: number, requested: number, detail: string): ReturnType<typeof badRequest> {
  return badRequest(
    `This model's maximum context length is ${limit} tokens. However, you requested ${requested} tokens ${detail}. ` +
      'Please reduce the length of the input.',
    'messages',
    'context_length_exceeded',
  );
}

function requireModel(body: Record<string, unknown>): string {
  const model = body.model;
  if (typeof model !== 'string' || model === '') throw badRequest('`model` must be a non-empty string', 'model');
  return model;
}

function float32Base64(values: readonly number[]): string {
  const buf = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => buf.writeFloatLE(v, i * 4));
  return buf.toString('base64');
}

/** A real model's batch embedding (real-model.ts); without one the lexical stand-in embeds. */
export type EmbedBatch = (texts: string[], dim: number) => Promise<number[][]>;

export async function embeddings(
  raw: unknown,
  dim: number,
  contextTokens: number,
  real?: EmbedBatch,
): Promise<EmbeddingsOutcome> {
  if (!isRecord(raw)) throw badRequest('request body must be a JSON object');
  const model = requireModel(raw);
  const input = raw.input;
  let texts: string[];
  if (typeof input === 'string') texts = [input];
  else if (Array.isArray(input) && input.length > 0 && input.every((x) => typeof x === 'string')) {
    texts = input;
  } else if (Array.isArray(input) && input.length > 0) {
    throw badRequest('`input` must be a string or an array of strings (token-id input is not supported)', 'input');
  } else {
    throw badRequest('`input` must be a non-empty string or a non-empty array of strings', 'input');
  }
  const format = raw.encoding_format ?? 'float';
  if (format !== 'float' && format !== 'base64') {
    throw badRequest('`encoding_format` must be "float" or "base64"', 'encoding_format');
  }
  if (raw.dimensions !== undefined && raw.dimensions !== null && raw.dimensions !== dim) {
    throw badRequest(`this model produces ${dim} dimensions; \`dimensions\` must be ${dim} or omitted`, 'dimensions');
  }
  let promptTokens = 0;
  const modes: EmbedMode[] = [];
  let unprefixed = 0;
  const prepared = texts.map((text, index) => {
    const tokens = estimateTokens(text.length);
    if (tokens > contextTokens) {
      throw contextError(contextTokens, tokens, `in input ${index} for embedding generation`);
    }
    promptTokens += tokens;
    const p = prepareInput(text);
    modes.push(p.mode);
    if (!p.prefixed) unprefixed++;
    return p;
  });
  const vectors = real
    ? await real(
        prepared.map((p) => p.text),
        dim,
      )
    : prepared.map((p) => embedText(p.text, dim));
  const data = vectors.map((vector, index) => {
    return {
      object: 'embedding' as const,
      index,
      embedding: format === 'base64' ? float32Base64(vector) : vector,
    };
  });
  return {
    body: { object: 'list', data, model, usage: { prompt_tokens: promptTokens, total_tokens: promptTokens } },
    model,
    modes,
    unprefixed,
  };
}

export interface ChatOutcome {
  body: {
    id: string;
    object: 'chat.completion';
    created: number;
    model: string;
    system_fingerprint: string;
    choices: {
      index: number;
      message: { role: 'assistant'; content: string };
      finish_reason: 'stop' | 'length';
      logprobs: null;
    }[];
    usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  };
  model: string;
  promptChars: number;
  promptTokens: number;
  maxTokens: number | undefined;
  temperature: number | undefined;
  enableThinking: boolean;
  /** The roles of the messages, in order. */
  roles: string[];
}

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);
/** Reply cap when the request sets no max_tokens. */
const DEFAULT_MAX_TOKENS = 512;

function messageContent(content: unknown, i: number): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) => {
        if (isRecord(part) && part.type === 'text' && typeof part.text === 'string') return part.text;
        throw badRequest(`messages[${i}].content: only text parts are supported`, 'messages');
      })
      .join('');
  }
  throw badRequest(`messages[${i}].content must be a string or an array of text parts`, 'messages');
}

function parseMessages(raw: unknown): ChatMessage[] {
  if (!Array.isArray(raw) || raw.length === 0) throw badRequest('`messages` must be a non-empty array', 'messages');
  return raw.map((m: unknown, i) => {
    if (!isRecord(m) || typeof m.role !== 'string' || !ROLES.has(m.role)) {
      throw badRequest(`messages[${i}].role must be one of ${[...ROLES].join(', ')}`, 'messages');
    }
    return { role: m.role, content: messageContent(m.content, i) };
  });
}

function optionalNumber(body: Record<string, unknown>, name: string, min: number, max: number, int: boolean) {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max || (int && !Number.isInteger(v))) {
    throw badRequest(`\`${name}\` must be ${int ? 'an integer' : 'a number'} in [${min}, ${max}]`, name);
  }
  return v;
}

export function chatCompletions(raw: unknown, contextTokens: number): ChatOutcome {
  if (!isRecord(raw)) throw badRequest('request body must be a JSON object');
  const model = requireModel(raw);
  const messages = parseMessages(raw.messages);
  const temperature = optionalNumber(raw, 'temperature', 0, 2, false);
  const maxTokens =
    optionalNumber(raw, 'max_tokens', 1, 1_000_000, true) ??
    optionalNumber(raw, 'max_completion_tokens', 1, 1_000_000, true);
  if (raw.stream === true) throw badRequest('streaming is not supported by the stand-in', 'stream');
  if (raw.n !== undefined && raw.n !== null && raw.n !== 1) throw badRequest('`n` must be 1', 'n');
  const kwargs = raw.chat_template_kwargs;
  if (kwargs !== undefined && kwargs !== null && !isRecord(kwargs)) {
    throw badRequest('`chat_template_kwargs` must be an object', 'chat_template_kwargs');
  }
  // Like a Qwen3-style dense model's chat template: thinking is on unless the caller turns it off.
  const enableThinking = !(isRecord(kwargs) && kwargs.enable_thinking === false);

  const promptChars = messages.reduce((n, m) => n + m.content.length, 0);
  const promptTokens = estimateTokens(promptChars);
  const requested = promptTokens + (maxTokens ?? 0);
  if (requested > contextTokens) {
    throw contextError(
      contextTokens,
      requested,
      `(${promptTokens} in the messages, ${maxTokens ?? 0} in the completion)`,
    );
  }

  const paragraph = composeSummary(readPrompt(messages));
  const full = enableThinking ? `<think>\nStand-in reasoning: none.\n</think>\n\n${paragraph}` : paragraph;
  const capChars = (maxTokens ?? DEFAULT_MAX_TOKENS) * 4;
  const content = full.length > capChars ? full.slice(0, capChars) : full;
  const completionTokens = estimateTokens(content.length);
  const digest = createHash('sha256').update(JSON.stringify(messages)).digest('hex').slice(0, 24);
  return {
    body: {
      id: `chatcmpl-standin-${digest}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      system_fingerprint: 'ckg-standin',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content },
          finish_reason: content.length < full.length ? 'length' : 'stop',
          logprobs: null,
        },
      ],
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      },
    },
    model,
    promptChars,
    promptTokens,
    maxTokens,
    temperature,
    enableThinking,
    roles: messages.map((m) => m.role),
  };
}
