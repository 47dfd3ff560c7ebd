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

async function clientCredentialsToken(): Promise<{ token: string; exp: number }> {
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
  const token = ((await res.json()) as { access_token: string }).access_token;
  const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp: number };
  return { token, exp: claims.exp * 1000 };
}

// Tokens live a few minutes (the provider's setting): a new one is fetched when the current one is about to expire.
let current: { token: string; exp: number } | undefined;
async function auth(): Promise<{ authorization: string }> {
  if (!current || current.exp - Date.now() < 30_000) current = await clientCredentialsToken();
  return { authorization: `Bearer ${current.token}` };
}

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(gateway + path, {
    method,
    headers: { ...(await auth()), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, text: await res.text() };
}

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const { status, text } = await call(method, path, body);
  if (status < 200 || status > 299) throw new Error(`${method} ${path} → ${status}: ${text}`);
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

// The event stream, opened before the sync starts so that none of its events is missed. It ends when the token it
// was opened with expires (an `error` frame) or when the connection drops: then it is opened again after the last
// event id seen, with a fresh token, and continues without a gap.
const events = new AbortController();
const deadline = setTimeout(() => events.abort(), 15 * 60_000);
let lastEventId: string | undefined;
async function openEvents(): Promise<ReadableStream<Uint8Array>> {
  const res = await fetch(`${gateway}/api/events`, {
    headers: {
      ...(await auth()),
      accept: 'text/event-stream',
      ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
    },
    signal: events.signal,
  });
  if (!res.ok || !res.body) throw new Error(`GET /api/events → ${res.status}: ${await res.text()}`);
  return res.body;
}
let stream = await openEvents();

// Start the sync; when one is already running for this source (an earlier `up` was interrupted), follow that one.
const started = Date.now();
const created = await call('POST', '/api/syncs', { source_id: source.id, triggered_by: 'demo' });
let syncId: string;
if (created.status === 201) {
  syncId = (JSON.parse(created.text) as { id: string }).id;
  console.log(`[demo] sync ${syncId} started; following it over SSE`);
} else {
  const active = (JSON.parse(created.text) as { error?: { code?: string; details?: { active_sync_id?: string } } })
    .error;
  if (created.status !== 409 || active?.code !== 'CONFLICT' || !active.details?.active_sync_id) {
    throw new Error(`POST /api/syncs → ${created.status}: ${created.text}`);
  }
  syncId = active.details.active_sync_id;
  console.log(`[demo] sync ${syncId} was already running for this source; following it over SSE`);
}

let final = '';
let lastPhase = '';
try {
  while (!final) {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const piece of stream) {
      buffer += decoder.decode(piece, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const lines = buffer.slice(0, cut).split('\n');
        buffer = buffer.slice(cut + 2);
        const id = lines.find((l) => l.startsWith('id:'));
        if (id) lastEventId = id.slice(3).trim();
        const data = lines
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).trim())
          .join('\n');
        if (!data) continue;
        const row = JSON.parse(data) as { type?: string; sync_id?: string | null; payload?: Record<string, unknown> };
        if (row.sync_id !== syncId || !row.payload) continue;
        if (row.type === 'sync_progress') {
          const phase = typeof row.payload.phase === 'string' ? row.payload.phase : '';
          if (phase !== lastPhase) console.log(`[demo]   phase ${phase}`);
          lastPhase = phase;
        } else if (row.type === 'sync_lifecycle') {
          const status = String(row.payload.status);
          console.log(`[demo]   status ${status}`);
          if (['completed', 'failed', 'cancelled', 'purged'].includes(status)) final = status;
        }
      }
      if (final) break;
    }
    if (!final) {
      console.log(`[demo]   event stream ended; resuming after event ${lastEventId ?? '(none)'}`);
      stream = await openEvents();
    }
  }
} catch (err) {
  if (!events.signal.aborted) throw err;
} finally {
  clearTimeout(deadline);
  events.abort();
}
if (final !== 'completed') {
  const run = await api<unknown>('GET', `/api/syncs/${syncId}`);
  throw new Error(`the demo sync ended ${final || 'without a final status'}: ${JSON.stringify(run)}`);
}
// The precise tier (issue 29): the stack starts a precise worker with the indexers it installed, so this repository's
// TypeScript gets compiler-grade symbol edges (provenance scip) out of the box; say what each language got.
const run = await api<{ stats?: { precise?: Record<string, { status: string; edges?: number; reason?: string }> } }>(
  'GET',
  `/api/syncs/${syncId}`,
);
const precise = Object.entries(run.stats?.precise ?? {}).map(
  ([language, p]) => `${language} ${p.status}${p.reason ? ` (${p.reason})` : ` (${p.edges ?? 0} scip edges)`}`,
);
console.log(`[demo] precise tier: ${precise.length > 0 ? precise.join(', ') : 'not run (no precise worker)'}`);
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
Get a token for yourself (the identity-provider stand-in's user alice):
  TOKEN=$(IDP_STATE_DIR=${stateDir}/idp KEYCLOAK_REALM=${realm} node --import tsx standins/idp/cli.ts token --user alice --issuer ${idp}/realms/${realm})
then for example:
  curl -H "Authorization: Bearer $TOKEN" ${gateway}/api/graph/stats
Stop everything: bash scripts/stack.sh down`);
