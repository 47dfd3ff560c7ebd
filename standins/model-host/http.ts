/** Small HTTP helpers of the model-host stand-in: JSON bodies and OpenAI-style error bodies. */
import type { IncomingMessage } from 'node:http';

/** The error body OpenAI's API (and vLLM's OpenAI server) returns: `{ error: { message, type, param, code } }`. */
export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export class HttpError extends Error {
  readonly status: number;
  readonly body: OpenAiErrorBody;
  constructor(status: number, type: string, code: string | null, message: string, param: string | null = null) {
    super(message);
    this.name = new.target.name;
    this.status = status;
    this.body = { error: { message, type, param, code } };
  }
}

export function badRequest(message: string, param: string | null = null, code: string | null = null): HttpError {
  return new HttpError(400, 'invalid_request_error', code, message, param);
}

const MAX_BODY_BYTES = 32 * 1024 * 1024;

export async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY_BYTES) {
      throw new HttpError(413, 'invalid_request_error', 'request_too_large', 'request body exceeds 32 MiB');
    }
    chunks.push(buf);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') throw badRequest('request body must be a JSON object');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw badRequest('request body is not valid JSON');
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Small seeded generator (mulberry32) so an injected failure pattern repeats run to run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
