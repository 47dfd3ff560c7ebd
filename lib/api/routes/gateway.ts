/**
 * The gateway's own routes, declared once (lib/api/route.ts): its liveness, the event stream, the MCP endpoint and
 * the identity provider's paths. The gateway serves them itself (gateway/routes.ts routes by data, not by a Koa
 * router), so these declarations give their documents (gateway/docs/gateway-openapi.ts) and their types.
 */
import { z } from 'zod';
import { param } from '../fields.ts';
import { route } from '../route.ts';
import { Health } from '../schemas.ts';
import { errorReply } from './errors.ts';

const UNAUTHORIZED = errorReply('UNAUTHORIZED or token_expired');

export const getGatewayHealth = route({
  method: 'GET',
  path: '/health',
  tags: ['gateway'],
  summary: 'Liveness of the gateway (no token needed)',
  security: [],
  success: { status: 200, description: 'alive', schema: Health },
});

export const getEvents = route({
  method: 'GET',
  path: '/api/events',
  tags: ['events'],
  summary: 'Server-sent event stream: catch-up after a resume id, then live',
  description:
    'Frames: `id: <row id>`, `event: <type>` (sync_lifecycle, sync_progress, source_changed, schedule_changed), ' +
    '`data: <the event row as JSON {id, type, sync_id, source_id, payload, created_at}>` (schema EventRow; ' +
    'the sync payloads: SyncLifecycle, SyncProgress; the error frame: StreamError). With a resume id ' +
    '(Last-Event-ID header, else last_event_id) every stored row after it is sent first, in id order; without ' +
    'one the stream starts live. Comment lines (`: heartbeat`) every 15 s. A row whose transaction committed ' +
    'after later rows were sent arrives as a frame without an `id:` line (its id is in data.id). When the ' +
    'access token expires: `event: error`, `data: {"code":"token_expired"}`, and the stream ends; refresh the ' +
    'token and reconnect with Last-Event-ID. A client that falls behind is caught up from storage once it reads ' +
    'again; one that stops reading is disconnected and resumes the same way.',
  security: [{ bearerAuth: [] }, { queryToken: [] }],
  headers: {
    'Last-Event-ID': param({ schema: { type: 'string', pattern: '^[0-9]+$' } }, (q, n) => q[n]),
  },
  query: {
    last_event_id: param({ schema: { type: 'integer', minimum: 0 } }, (q, n) => q[n]),
    token: param(
      { schema: { type: 'string' }, description: 'Access token, for EventSource (accepted on this route only)' },
      (q, n) => q[n],
    ),
  },
  success: {
    status: 200,
    description: 'the stream; each frame’s data is an EventRow',
    schema: z.string(),
    contentType: 'text/event-stream',
  },
  responses: {
    400: errorReply('INVALID_ARGUMENT: the resume id is not a non-negative integer'),
    401: UNAUTHORIZED,
    503: errorReply('UPSTREAM_UNAVAILABLE: the event stream is not connected to the database yet'),
  },
});

/** A JSON-RPC message of the Model Context Protocol (its shapes are the protocol's, not this service's). */
const JsonRpc = z.record(z.string(), z.unknown());

export const postMcp = route({
  method: 'POST',
  path: '/mcp',
  tags: ['mcp'],
  summary: 'Model Context Protocol server (streamable HTTP, stateless)',
  description:
    'JSON-RPC messages of the Model Context Protocol (initialize, tools/list, tools/call, ...), one per POST, ' +
    'answered as JSON. Stateless: no Mcp-Session-Id, no server-initiated stream (GET and DELETE are 405). ' +
    'Tools: search, get_node, read_file, impact, diff, summarize_file, list_sources, list_syncs, start_sync, ' +
    'sync_progress; each calls the REST read of the same name with the caller’s token. Tool answers are at ' +
    'most 24,000 characters; a longer one is cut and a note says how to get the rest. The same tools run ' +
    'over stdio with `ckg mcp` (README).',
  security: [{ bearerAuth: [] }],
  body: { schema: JsonRpc, required: true },
  success: { status: 200, description: 'the JSON-RPC answer', schema: JsonRpc },
  responses: {
    202: { description: 'a notification or response was accepted' },
    401: UNAUTHORIZED,
    405: errorReply('METHOD_NOT_ALLOWED: only POST'),
  },
});

/** The identity provider's paths; `issuer` (the configured realm's) is named in the description. */
export const getAuth = (issuer: string) =>
  route({
    method: 'GET',
    path: '/auth/{path}',
    tags: ['gateway'],
    summary: 'Identity provider endpoints, proxied without token validation',
    description:
      '`/auth/<rest>` is forwarded to `<KEYCLOAK_URL>/<rest>`, so `<gateway>/auth/realms/<realm>` works as the ' +
      'authority of a browser OIDC library. Only what an OIDC client needs, of the configured realm: discovery, ' +
      'certs, auth, token (POST), token/introspect and revoke (POST), userinfo, logout, the session iframe, ' +
      'the login pages (login-actions, broker) and /auth/resources; GET, HEAD, POST, OPTIONS as each takes. ' +
      "Anything else is 404 or 405; the provider's own 404s and 5xx come back in the error shape, its OAuth " +
      `errors unchanged. Tokens are issued by ${issuer}.`,
    security: [],
    params: { path: param({ schema: { type: 'string' }, required: true }, (q, n) => String(q[n] ?? '')) },
    success: { status: 200, description: "the identity provider's response, unchanged" },
    responses: {
      default: { description: "the identity provider's response, unchanged" },
      404: errorReply('NOT_FOUND'),
      405: errorReply('METHOD_NOT_ALLOWED'),
      502: errorReply('UPSTREAM_DISCONNECTED'),
      503: errorReply('UPSTREAM_UNAVAILABLE'),
      504: errorReply('UPSTREAM_TIMEOUT'),
    },
  });
