/** The gateway's own part of the API document: /health, /api/events, /auth/*, and what every route shares. */
import { EVENT_SCHEMAS } from '../../lib/api/events.ts';
import { componentsOf, json, ref } from '../../lib/api/openapi.ts';
import { errorResponse, sharedSchemas } from '../../lib/openapi.ts';

export type OpenApiDoc = Record<string, unknown> & {
  paths?: Record<string, Record<string, unknown>>;
  components?: Record<string, Record<string, unknown>>;
  tags?: ({ name: string } & Record<string, unknown>)[];
};

export function gatewayDocument(issuer: string): OpenApiDoc {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Code-Knowledge Graph Service API',
      version: '1.0.0',
      description:
        'All traffic enters through the gateway: it authenticates the caller (Bearer access token from the identity ' +
        'provider, RS256, issuer checked, audience not), forwards the request unchanged to the graph component ' +
        '(reads, sources) or the ingestion component (sync and schedule commands), and streams server-sent events. ' +
        'Upstream failures: 502 UPSTREAM_DISCONNECTED, 503 UPSTREAM_UNAVAILABLE, 504 UPSTREAM_TIMEOUT. ' +
        'Unknown paths: 404 NOT_FOUND; a known path with another method: 405 METHOD_NOT_ALLOWED with Allow.',
    },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: 'gateway', description: 'Served by the gateway itself' },
      { name: 'events', description: 'Server-sent event stream' },
    ],
    paths: {
      '/health': {
        get: {
          tags: ['gateway'],
          summary: 'Liveness of the gateway (no token needed)',
          security: [],
          responses: {
            '200': { description: 'alive', content: json(ref('Health')) },
          },
        },
      },
      '/api/events': {
        get: {
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
          parameters: [
            { name: 'Last-Event-ID', in: 'header', schema: { type: 'string', pattern: '^[0-9]+$' } },
            { name: 'last_event_id', in: 'query', schema: { type: 'integer', minimum: 0 } },
            {
              name: 'token',
              in: 'query',
              description: 'Access token, for EventSource (accepted on this route only)',
              schema: { type: 'string' },
            },
          ],
          responses: {
            '200': {
              description: 'the stream; each frame’s data is an EventRow',
              content: { 'text/event-stream': { schema: { type: 'string' } } },
            },
            '400': errorResponse('INVALID_ARGUMENT: the resume id is not a non-negative integer'),
            '401': errorResponse('UNAUTHORIZED or token_expired'),
            '503': errorResponse('UPSTREAM_UNAVAILABLE: the event stream is not connected to the database yet'),
          },
        },
      },
      '/mcp': {
        post: {
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
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
          responses: {
            '200': {
              description: 'the JSON-RPC answer',
              content: { 'application/json': { schema: { type: 'object' } } },
            },
            '202': { description: 'a notification or response was accepted' },
            '401': errorResponse('UNAUTHORIZED or token_expired'),
            '405': errorResponse('METHOD_NOT_ALLOWED: only POST'),
          },
        },
      },
      '/auth/{path}': {
        get: {
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
          parameters: [{ name: 'path', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            default: { description: "the identity provider's response, unchanged" },
            '404': errorResponse('NOT_FOUND'),
            '405': errorResponse('METHOD_NOT_ALLOWED'),
            '502': errorResponse('UPSTREAM_DISCONNECTED'),
            '503': errorResponse('UPSTREAM_UNAVAILABLE'),
            '504': errorResponse('UPSTREAM_TIMEOUT'),
          },
        },
      },
    },
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        queryToken: { type: 'apiKey', in: 'query', name: 'token' },
        oidc: { type: 'openIdConnect', openIdConnectUrl: `${issuer}/.well-known/openid-configuration` },
      },
      schemas: { Error: sharedSchemas.Error, Health: sharedSchemas.Health, ...componentsOf(EVENT_SCHEMAS) },
      responses: {
        Unauthorized: errorResponse('UNAUTHORIZED (invalid or missing token) or token_expired'),
        UpstreamDisconnected: errorResponse('UPSTREAM_DISCONNECTED: the component closed the connection'),
        UpstreamUnavailable: errorResponse('UPSTREAM_UNAVAILABLE: the component cannot be reached'),
        UpstreamTimeout: errorResponse('UPSTREAM_TIMEOUT: no answer within UPSTREAM_TIMEOUT_SECONDS'),
      },
    },
  };
}
