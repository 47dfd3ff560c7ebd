/**
 * A minimal OpenAI-compatible embeddings server for pipeline tests (POST /v1/embeddings), until the project's
 * model-host stand-in (branch standins) lands on main. Deterministic unit vectors from a hash of the input; knobs
 * to fail (every request, or the next N) and to slow down; counters of requests and inputs.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandinKnobs {
  /** Status of every answer while set (e.g. 500). */
  failAll: number | null;
  /** Fail this many of the next requests with 500. */
  failNext: number;
  delayMs: number;
}

export interface EmbeddingStandin {
  url: string;
  knobs: StandinKnobs;
  counters: { requests: number; inputs: number; failed: number; busyMs: number };
  close(): Promise<void>;
}

export function vectorFor(text: string, dim: number): number[] {
  const out = new Array<number>(dim);
  let seed = createHash('sha256').update(text).digest();
  for (let i = 0; i < dim; i += 8) {
    if (i % 64 === 0 && i > 0) seed = createHash('sha256').update(seed).digest();
    for (let k = 0; k < 8 && i + k < dim; k++) out[i + k] = (seed[(i / 8 + k) % 32]! - 127.5) / 127.5;
  }
  const norm = Math.sqrt(out.reduce((s, x) => s + x * x, 0)) || 1;
  return out.map((x) => x / norm);
}

export async function startEmbeddingStandin(dim = 896): Promise<EmbeddingStandin> {
  const knobs: StandinKnobs = { failAll: null, failNext: 0, delayMs: 0 };
  const counters = { requests: 0, inputs: 0, failed: 0, busyMs: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const t0 = performance.now();
      counters.requests++;
      const answer = (status: number, body: unknown) => {
        counters.busyMs += performance.now() - t0;
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      };
      if (knobs.failAll !== null || knobs.failNext > 0) {
        if (knobs.failNext > 0) knobs.failNext--;
        counters.failed++;
        return answer(knobs.failAll ?? 500, { error: { message: 'stand-in failure', type: 'server_error' } });
      }
      let body: { input?: unknown; model?: unknown };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
      } catch {
        return answer(400, { error: { message: 'invalid JSON' } });
      }
      const input = typeof body.input === 'string' ? [body.input] : body.input;
      if (!Array.isArray(input) || !input.every((x) => typeof x === 'string')) {
        return answer(400, { error: { message: '`input` must be a string or a list of strings' } });
      }
      counters.inputs += input.length;
      const data = input.map((text: string, index) => ({
        object: 'embedding',
        index,
        embedding: vectorFor(text, dim),
      }));
      const send = () =>
        answer(200, { object: 'list', data, model: body.model, usage: { prompt_tokens: 0, total_tokens: 0 } });
      if (knobs.delayMs > 0) setTimeout(send, knobs.delayMs);
      else send();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/embeddings`,
    knobs,
    counters,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
