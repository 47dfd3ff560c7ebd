/**
 * The main job of README command 1, run by `scripts/stack.sh up` once everything is up: through the gateway, with a
 * real token from the identity provider, it registers this repository as a source, starts a sync, follows it over
 * server-sent events to the end, reads the graph statistics, and prints where everything is.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const env = (name: string, fallback?: string): string => {
  const v = process.env[name] ?? fallback;
  if (v === undefined) throw new Error(`${name} is not set (run through scripts/stack.sh up)`);
  return v;
};
const gateway = env('GATEWAY_URL', 'http://127.0.0.1:8080');
const idp = env('KEYCLOAK_URL', 'http://127.0.0.1:8180');
const realm = env('KEYCLOAK_REALM', 'service');
const stateDir = env('CKG_STATE_DIR', `${repoRoot}.stack`);
const secret = readFileSync(`${stateDir}/gateway-client-secret`, 'utf8').trim();

async function clientCredentialsToken(): Promise<string> {
  const res = await fetch(`${idp}/realms/${realm}/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: 'service-gateway',
      client_secret: secret,
    }),
  });
  if (!res.ok) throw new Error(`token request failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

const token = await clientCredentialsToken();
const auth = { authorization: `Bearer ${token}` };

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(gateway + path, {
    method,
    headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status}: ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

const branch = execFileSync('git', ['rev-parse', '--abbrev-ref', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
const source = await api<{ id: string }>('POST', '/api/sources', {
  source_type: 'git',
  owner: 'local',
  name: 'code-knowledge-graph',
  url: repoRoot,
  default_branch: branch === 'HEAD' ? 'main' : branch,
});
console.log(`[demo] source ${source.id} (this repository, branch ${branch})`);

// Follow events from now on: read the newest event id first, then open the stream after it.
const events = new AbortController();
const stream = await fetch(`${gateway}/api/events`, {
  headers: { ...auth, accept: 'text/event-stream' },
  signal: events.signal,
});
if (!stream.ok || !stream.body) throw new Error(`GET /api/events → ${stream.status}`);

const sync = await api<{ id: string; status: string }>('POST', '/api/syncs', {
  source_id: source.id,
  triggered_by: 'demo',
});
console.log(`[demo] sync ${sync.id} started; following it over SSE`);

const started = Date.now();
let final = '';
const decoder = new TextDecoder();
let buffer = '';
let lastPhase = '';
const timeout = setTimeout(() => events.abort(), 15 * 60_000);
try {
  for await (const piece of stream.body) {
    buffer += decoder.decode(piece as Uint8Array, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const data = frame
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim())
        .join('\n');
      if (!data) continue;
      const row = JSON.parse(data) as { type: string; sync_id: string | null; payload: Record<string, unknown> };
      if (row.sync_id !== sync.id) continue;
      if (row.type === 'sync_progress') {
        const phase = typeof row.payload.phase === 'string' ? row.payload.phase : '';
        if (phase !== lastPhase) console.log(`[demo]   phase ${phase}`);
        lastPhase = phase;
      } else if (row.type === 'sync_lifecycle') {
        const status = String(row.payload.status);
        console.log(`[demo]   status ${status}`);
        if (['completed', 'failed', 'cancelled'].includes(status)) {
          final = status;
          events.abort();
        }
      }
    }
  }
} catch (err) {
  if (!events.signal.aborted) throw err;
} finally {
  clearTimeout(timeout);
}
if (final !== 'completed') {
  const run = await api<unknown>('GET', `/api/syncs/${sync.id}`);
  throw new Error(`the demo sync ended ${final || 'without a final status'}: ${JSON.stringify(run)}`);
}
const stats = await api<Record<string, unknown>>('GET', '/api/graph/stats');
console.log(
  `[demo] sync completed in ${((Date.now() - started) / 1000).toFixed(1)} s; graph stats: ${JSON.stringify(stats)}`,
);
console.log(`
The service is up.
  Gateway (all API traffic)   ${gateway}
  API reference               ${gateway}/docs  (ReDoc: ${gateway}/redoc)
  Temporal UI (syncs)         ${env('TEMPORAL_UI_URL', 'http://127.0.0.1:8233')}
  Identity provider (realm)   ${idp}/realms/${realm}
Get a token for yourself:
  node --import tsx standins/idp/cli.ts token --user alice
then for example:
  curl -H "Authorization: Bearer $TOKEN" ${gateway}/api/graph/stats
Stop everything: bash scripts/stack.sh down`);
