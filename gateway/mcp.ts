/**
 * POST /mcp: the MCP server (mcp/server.ts) over streamable HTTP in stateless mode: each request gets a fresh server
 * and transport, so any gateway instance answers any message and nothing is kept between calls. The tools call the
 * same REST reads the gateway routes (the routing table picks the component), with the caller's Authorization
 * header forwarded, under the upstream timeout. Responses are plain JSON (no stream is held open). At most
 * `maxInFlight` MCP requests run at once (UPSTREAM_MAX_CONNECTIONS: each makes one or two upstream calls); more are
 * refused with 503 and Retry-After rather than queued without bound.
 */
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type Koa from 'koa';
import { UpstreamError } from '../lib/errors.ts';
import { ApiError, createHttpApi } from '../lib/api/client.ts';
import { createMcpServer } from '../mcp/server.ts';
import type { Logger } from '../lib/log.ts';
import { readWholeBody, type BodyLimits } from './proxy/body.ts';
import type { Upstream } from './proxy/forward.ts';
import { resolveRoute } from './routes.ts';

export interface McpDeps {
  upstreams: { graph: Upstream; ingestion: Upstream };
  timeoutMs: number;
  maxInFlight: number;
  /** The message is read whole within the body deadline before an MCP slot is taken (proxy/body.ts). */
  body: BodyLimits;
  log: Logger;
}

export type McpHandler = (ctx: Koa.Context) => Promise<void>;

export function createMcpHandler(deps: McpDeps): McpHandler {
  const base = (method: string, path: string): string => {
    const r = resolveRoute(method, path);
    if (r.kind === 'route' && (r.destination === 'graph' || r.destination === 'ingestion')) {
      return deps.upstreams[r.destination].base.href;
    }
    throw new ApiError(404, 'NOT_FOUND', `no REST route for ${method} ${path}`);
  };
  let inFlight = 0;
  return async (ctx) => {
    const raw = await readWholeBody(ctx, deps.body);
    let message: unknown;
    try {
      message = JSON.parse(raw.toString('utf8'));
    } catch {
      // What the MCP transport answers itself: a JSON-RPC parse error.
      ctx.status = 400;
      ctx.body = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the body is not JSON' } };
      return;
    }
    if (inFlight >= deps.maxInFlight) {
      ctx.set('Retry-After', '1');
      throw new UpstreamError('UPSTREAM_UNAVAILABLE', `more than ${deps.maxInFlight} MCP requests in flight`);
    }
    inFlight++;
    try {
      await serve(ctx, message);
    } finally {
      inFlight--;
    }
  };

  async function serve(ctx: Koa.Context, message: unknown): Promise<void> {
    const authorization = ctx.get('authorization');
    const api = createHttpApi({
      base,
      headers: (): Record<string, string> => (authorization ? { authorization } : {}),
      timeoutMs: deps.timeoutMs,
    });
    const server = createMcpServer(api);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    ctx.respond = false;
    // The answer is written when the tool has run, which may be after handleRequest returns: the request counts as
    // in flight until its response is closed.
    const closed = new Promise<void>((resolve) => ctx.res.once('close', resolve));
    await transport.handleRequest(ctx.req, ctx.res, message);
    await closed;
    await server.close().catch((err: unknown) => deps.log.warning('mcp_close_failed', { error: err }));
  }
}
