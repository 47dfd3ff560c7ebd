/**
 * A minimal OpenAI-compatible model host for tests (POST /v1/embeddings, POST /v1/chat/completions) that records
 * every request it receives. Stand-in until the project's own (standins/model-host) lands on main.
 *
 * - Embeddings: a deterministic unit vector per input text, or the vector registered with `setVector(text, v)`.
 * - Chat: answers `Summary: <first line of the user message>` unless the messages exceed `contextChars` characters,
 *   in which case it answers 400 with vLLM's context-length error; `chatStatus` forces another status.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatRequestRecord {
  body: {
    model: string;
    messages: Array<{ role: string; content: string }>;
    temperature?: number;
    max_tokens?: number;
    chat_template_kwargs?: { enable_thinking?: boolean };
  };
  authorization: string | undefined;
  promptChars: number;
  status: number;
}

export interface ModelHost {
  url: string;
  embeddingsUrl: string;
  chatUrl: string;
  embeddingRequests: Array<{ input: string[]; model: string }>;
  chatRequests: ChatRequestRecord[];
  /** Prompts longer than this (sum of message characters) get a 400 context-length error. */
  contextChars: number;
  /** When set, every chat request gets this status (e.g. 500). */
  chatStatus: number | undefined;
  /** Delay before each chat answer, in ms. */
  chatDelayMs: number;
  setVector(text: string, vector: number[]): void;
  close(): Promise<void>;
}

export function hashVector(text: string, dim: number): number[] {
  const out: number[] = [];
  let block = createHash('sha256').update(text).digest();
  while (out.length < dim) {
    for (let i = 0; i + 1 < block.length && out.length < dim; i += 2) out.push(block.readUInt16LE(i) / 65535 - 0.5);
    block = createHash('sha256').update(block).digest();
  }
  const n = Math.hypot(...out);
  return out.map((x) => x / n);
}

export async function startModelHost(opts: { dim?: number; contextChars?: number } = {}): Promise<ModelHost> {
  const dim = opts.dim ?? 896;
  const vectors = new Map<string, number[]>();
  const host: ModelHost = {
    url: '',
    embeddingsUrl: '',
    chatUrl: '',
    embeddingRequests: [],
    chatRequests: [],
    contextChars: opts.contextChars ?? 1_000_000,
    chatStatus: undefined,
    chatDelayMs: 0,
    setVector: (text, v) => vectors.set(text, v),
    close: () => new Promise((r) => server.close(() => r())),
  };
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, unknown>;
      if (req.url === '/v1/embeddings') {
        const input = (typeof body.input === 'string' ? [body.input] : body.input) as string[];
        host.embeddingRequests.push({ input, model: String(body.model) });
        send(200, {
          object: 'list',
          data: input.map((t, index) => ({
            object: 'embedding',
            index,
            embedding: vectors.get(t) ?? hashVector(t, dim),
          })),
          model: body.model,
        });
        return;
      }
      if (req.url === '/v1/chat/completions') {
        const b = body as unknown as ChatRequestRecord['body'];
        const promptChars = b.messages.reduce((n, m) => n + m.content.length, 0);
        const status = host.chatStatus ?? (promptChars > host.contextChars ? 400 : 200);
        host.chatRequests.push({ body: b, authorization: req.headers.authorization, promptChars, status });
        setTimeout(() => {
          if (status === 400 && host.chatStatus === undefined) {
            send(400, {
              object: 'error',
              message: `This model's maximum context length is ${host.contextChars} tokens. However, you requested ${promptChars} tokens. Please reduce the length of the messages.`,
              type: 'BadRequestError',
              code: 400,
            });
          } else if (status !== 200) {
            send(status, { object: 'error', message: 'stand-in failure', code: status });
          } else {
            const user = b.messages.find((m) => m.role === 'user')?.content ?? '';
            send(200, {
              id: 'chatcmpl-test',
              object: 'chat.completion',
              model: b.model,
              choices: [
                {
                  index: 0,
                  message: { role: 'assistant', content: `Summary: ${user.split('\n')[0]}` },
                  finish_reason: 'stop',
                },
              ],
            });
          }
        }, host.chatDelayMs);
        return;
      }
      send(404, { error: 'not found' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  host.url = `http://127.0.0.1:${port}`;
  host.embeddingsUrl = `${host.url}/v1/embeddings`;
  host.chatUrl = `${host.url}/v1/chat/completions`;
  return host;
}
