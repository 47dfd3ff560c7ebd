/**
 * A gateway token for the benchmarks: the client-credentials grant of the stack's `service-gateway` client (its
 * secret is in the stack's state folder, written by scripts/stack.sh), at the identity provider's token endpoint or
 * through the gateway's /auth proxy.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface BenchToken {
  token: string;
  /** Expiry, ms since the epoch (the token's own `exp`). */
  exp: number;
}

/** The stack's state folder: CKG_STATE_DIR, or .stack of the checkout the benchmark runs from. */
export function stackStateDir(): string {
  return process.env.CKG_STATE_DIR ?? join(process.cwd(), '.stack');
}

/** Asks `tokenUrl` (…/realms/<realm>/protocol/openid-connect/token) for a token of the gateway's client. */
export async function clientCredentialsToken(tokenUrl: string, stateDir = stackStateDir()): Promise<BenchToken> {
  const res = await fetch(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: 'service-gateway',
      client_secret: readFileSync(join(stateDir, 'gateway-client-secret'), 'utf8').trim(),
    }),
  });
  if (!res.ok) throw new Error(`token: ${res.status} ${await res.text()}`);
  const token = ((await res.json()) as { access_token: string }).access_token;
  const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString() || '{}') as {
    exp?: number;
  };
  return { token, exp: (payload.exp ?? 0) * 1000 };
}
