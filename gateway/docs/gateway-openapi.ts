/**
 * The gateway's own part of the API document: its routes (lib/api/routes/gateway.ts: /health, /api/events, /mcp,
 * /auth/{path}) and what every route shares (security schemes, the upstream error answers).
 */
import { EVENT_SCHEMAS } from '../../lib/api/events.ts';
import { componentsOf, pathsOf } from '../../lib/api/openapi.ts';
import { getAuth, getEvents, getGatewayHealth, postMcp } from '../../lib/api/routes/gateway.ts';
import { errorResponse, sharedSchemas } from '../../lib/openapi.ts';

export type OpenApiDoc = Record<string, unknown> & {
  paths?: Record<string, Record<string, unknown>>;
  components?: Record<string, Record<string, unknown>>;
  tags?: ({ name: string } & Record<string, unknown>)[];
};

export function gatewayDocument(issuer: string): OpenApiDoc {
  const schemas: Record<string, unknown> = {};
  const paths = pathsOf([getGatewayHealth, getEvents, postMcp, getAuth(issuer)], schemas);
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
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        queryToken: { type: 'apiKey', in: 'query', name: 'token' },
        oidc: { type: 'openIdConnect', openIdConnectUrl: `${issuer}/.well-known/openid-configuration` },
      },
      schemas: { Error: sharedSchemas.Error, Health: sharedSchemas.Health, ...schemas, ...componentsOf(EVENT_SCHEMAS) },
      responses: {
        Unauthorized: errorResponse('UNAUTHORIZED (invalid or missing token) or token_expired'),
        UpstreamDisconnected: errorResponse('UPSTREAM_DISCONNECTED: the component closed the connection'),
        UpstreamUnavailable: errorResponse('UPSTREAM_UNAVAILABLE: the component cannot be reached'),
        UpstreamTimeout: errorResponse('UPSTREAM_TIMEOUT: no answer within UPSTREAM_TIMEOUT_SECONDS'),
      },
    },
  };
}
