/**
 * The gateway's Koa application: request id and metrics first (lib/observe.ts; the route label is the routing
 * table's route name), errors, CORS, then the routing table, authentication where the route needs it, and dispatch. There is no body parser: proxied bodies stream through untouched.
 */
import cors from '@koa/cors';
import Koa from 'koa';
import { InvalidArgumentError, NotFoundError } from '../lib/errors.ts';
import type { Logger } from '../lib/log.ts';
import { observeRequests, type ObservedState } from '../lib/observe.ts';
import type { Authenticator } from './auth/middleware.ts';
import type { DocsUi } from './docs/ui.ts';
import type { OpenApiService } from './docs/openapi.ts';
import type { EventsHandler } from './events/stream.ts';
import type { Explorer } from './explorer.ts';
import { gatewayErrors, MethodNotAllowedError } from './http-errors.ts';
import type { McpHandler } from './mcp.ts';
import { upstreamPath, type Forward, type Upstream } from './proxy/forward.ts';
import { hasDotSegment, resolveRoute } from './routes.ts';
import { idpRequest, replaceIdpAnswer } from './auth-proxy.ts';

export interface AppDeps {
  log: Logger;
  corsOrigins: readonly string[];
  auth: Authenticator;
  forward: Forward;
  upstreams: { graph: Upstream; ingestion: Upstream; idp: Upstream };
  /** The identity provider's realm: the only one `/auth/realms/...` reaches. */
  realm: string;
  events: EventsHandler;
  mcp: McpHandler;
  openapi: OpenApiService;
  docsUi: DocsUi;
  explorer: Explorer;
}

export function buildApp(deps: AppDeps): Koa {
  const app = new Koa({ proxy: false });
  app.silent = true;
  app.use(observeRequests());
  app.use(gatewayErrors(deps.log));
  if (deps.corsOrigins.length > 0) {
    const allowed = new Set(deps.corsOrigins);
    app.use(
      cors({
        origin: (ctx) => {
          const origin = ctx.get('origin');
          return allowed.has('*') || allowed.has(origin) ? origin : '';
        },
        credentials: true,
        maxAge: 600,
        exposeHeaders: ['Content-Length', 'Content-Type', 'Location'],
      }),
    );
  }
  app.use(async (ctx) => {
    if (hasDotSegment(ctx.path)) throw new InvalidArgumentError('path', 'must not contain . or .. segments');
    const r = resolveRoute(ctx.method, ctx.path);
    const state = ctx.state as ObservedState;
    if (r.kind === 'route') {
      state.route = r.route.name;
      state.longLived = r.destination === 'events';
    }
    if (r.kind === 'not_found') throw new NotFoundError('route', ctx.path);
    if (r.kind === 'method_not_allowed') throw new MethodNotAllowedError(ctx.method, ctx.path, r.allow);
    const claims = r.route.auth
      ? await deps.auth.authenticate(ctx, { queryTokenAllowed: r.destination === 'events' })
      : undefined;
    switch (r.destination) {
      case 'health':
        ctx.body = { status: 'ok' };
        return;
      case 'events':
        return deps.events(ctx, claims!);
      case 'mcp':
        return deps.mcp(ctx);
      case 'openapi':
        ctx.body = await deps.openapi.document();
        return;
      case 'docs':
      case 'redoc': {
        const asset = deps.docsUi.asset(ctx.path);
        if (!asset) throw new NotFoundError('route', ctx.path);
        ctx.type = asset.type;
        ctx.set('Cache-Control', 'public, max-age=3600');
        ctx.body = asset.body;
        return;
      }
      case 'explorer': {
        const asset = deps.explorer.asset(ctx.path);
        if (!asset) throw new NotFoundError('route', ctx.path);
        ctx.type = asset.type;
        ctx.set('Cache-Control', asset.cacheControl);
        for (const [k, v] of Object.entries(asset.headers ?? {})) ctx.set(k, v);
        ctx.body = asset.body;
        return;
      }
      case 'graph':
      case 'ingestion': {
        const up = deps.upstreams[r.destination];
        return deps.forward(ctx, up, upstreamPath(up.base, ctx.url));
      }
      case 'idp': {
        const verdict = idpRequest(ctx.method, ctx.path.slice('/auth'.length), deps.realm);
        if (!verdict.ok) throw verdict.error;
        const up = deps.upstreams.idp;
        return deps.forward(ctx, up, upstreamPath(up.base, ctx.url, '/auth'), { replace: replaceIdpAnswer });
      }
    }
  });
  return app;
}
