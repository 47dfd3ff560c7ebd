/**
 * The running stack as a user reaches it, for benchmarks that go through the gateway: its addresses from `.stack/env`
 * (or the environment), a token of the gateway's client (client credentials at the identity provider), one JSON call,
 * and a pool on its database for the figures the API does not give (sizes, the step ledger).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
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
async function auth(): Promise<Record<string, string>> {
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
