/**
 * The running stack as a user reaches it, for benchmarks that go through the gateway: its addresses from `.stack/env`
 * (or the environment), a token of the gateway's client (client credentials at the identity provider), one JSON call,
 * and a pool on its database for the figures the API does not give (sizes, the step ledger).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { connectSse, type Frame } from '../../test/support/sse-client.ts';
import { clientCredentialsToken, type BenchToken } from './token.ts';

export const root = fileURLToPath(new URL('../../', import.meta.url));
/** The stack's `.stack/env` (written by scripts/stack.sh) as a record. */
export const stackEnv = Object.fromEntries(
  readFileSync(join(root, '.stack/env'), 'utf8')
    .split('\n')
    .filter((l) => l.includes('='))
    .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
) as Record<string, string>;
export const env = (k: string, d: string) => process.env[k] ?? stackEnv[k] ?? d;
export const gateway = env('GATEWAY_URL', 'http://127.0.0.1:8080');
const idp = env('KEYCLOAK_URL', 'http://127.0.0.1:8180');
const realm = env('KEYCLOAK_REALM', 'service');

export function stackPool(max = 2): pg.Pool {
  return new pg.Pool({ connectionString: env('DATABASE_URL', 'postgresql://postgres@127.0.0.1:55432/ckg'), max });
}

let token: BenchToken | undefined;
export async function auth(): Promise<Record<string, string>> {
  if (!token || token.exp - Date.now() < 30_000) {
    token = await clientCredentialsToken(`${idp}/realms/${realm}/protocol/openid-connect/token`, join(root, '.stack'));
  }
  return { authorization: `Bearer ${token.token}`, 'content-type': 'application/json' };
}

/** One request through the gateway; a non-2xx answer throws with its status and body. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${gateway}${path}`, {
    method,
    headers: await auth(),
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

export interface GatewayRun {
  id: string;
  status: string;
  stats: {
    files?: number;
    chunks?: number;
    incremental?: Record<string, number | string | boolean | null>;
    durations_ms?: Record<string, number>;
    embeddings?: Record<string, unknown>;
  };
}

/**
 * Starts a sync through the gateway and follows it on the event stream, as the spec's clients do: the stream is opened
 * (live, no catch-up) before the POST, and the wall time runs from the POST to the `sync_lifecycle` frame that says
 * the sync ended. The run is then read once for its stats. A sync that does not complete throws; a stream that ends
 * (a broken connection) falls back to polling the run every 100 ms.
 *
 * Until the seventh session this polled the run every 25 ms: ~80 requests per CPython re-sync, whose gateway and graph
 * component work (~0.3 CPU-s) competed for the machine's two cores with the sync being timed.
 */
export async function syncThroughGateway(
  sourceId: string,
  overrides?: Record<string, unknown>,
): Promise<{ ms: number; run: GatewayRun }> {
  const headers = await auth();
  const stream = await connectSse(`${gateway}/api/events`, { authorization: headers.authorization! });
  if (stream.status !== 200) throw new Error(`GET /api/events: ${stream.status} ${stream.body}`);
  try {
    const t = performance.now();
    const created = await api<GatewayRun>('POST', '/api/syncs', {
      source_id: sourceId,
      triggered_by: 'bench',
      ...(overrides ? { config_overrides: overrides } : {}),
    });
    let done = false;
    const ended = await new Promise<number>((resolve) => {
      const end = (): void => {
        done = true;
        resolve(performance.now());
      };
      const seen = (f: Frame): void => {
        if (f.event !== 'sync_lifecycle' || !f.data) return;
        const row = JSON.parse(f.data) as { payload?: { sync_id?: string; status?: string } };
        if (row.payload?.sync_id === created.id && ENDED.includes(row.payload.status ?? '')) end();
      };
      for (const f of stream.frames) seen(f);
      stream.onFrame = seen;
      // A broken stream is not the sync's fault: poll instead.
      const poll = async (): Promise<void> => {
        while (!stream.ended && !done) await new Promise((r) => setTimeout(r, 1000));
        while (!done) {
          const run = await api<GatewayRun>('GET', `/api/syncs/${created.id}`).catch(() => null);
          if (run && ENDED.includes(run.status)) return end();
          await new Promise((r) => setTimeout(r, 100));
        }
      };
      void poll();
    });
    const run = await api<GatewayRun>('GET', `/api/syncs/${created.id}`);
    if (run.status !== 'completed') throw new Error(`sync ${run.id} ended ${run.status}`);
    return { ms: ended - t, run };
  } finally {
    stream.close();
  }
}

const ENDED = ['completed', 'failed', 'cancelled'];
