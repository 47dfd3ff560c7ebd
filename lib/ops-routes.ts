/**
 * The operators' endpoints, unauthenticated: `GET /ready` (readiness, lib/readiness.ts: 200 or 503 with each check)
 * and `GET /metrics` (Prometheus text format). As Koa middleware for the graph and ingestion components, which are
 * reached only inside the deployment's network, and as a small server of its own (`startOpsServer`) for processes
 * whose main port is public (the gateway) or that have none (the worker). /health stays the specification's.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { exposition } from './metrics.ts';
import type { ReadyReport } from './readiness.ts';

export type Ready = () => Promise<ReadyReport>;

/** GET /ready and GET /metrics as Koa middleware (placed after /health, before the routes). */
export function opsRoutes(ready: Ready): Koa.Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'GET' || (ctx.path !== '/ready' && ctx.path !== '/metrics')) {
      await next();
      return;
    }
    (ctx.state as { route?: string }).route = ctx.path;
    if (ctx.path === '/ready') {
      const report = await ready();
      ctx.status = report.status === 'ready' ? 200 : 503;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = report;
      return;
    }
    const { contentType, body } = await exposition();
    ctx.type = contentType;
    ctx.body = body;
  };
}

export interface OpsServer {
  port: number;
  url: string;
  close(): Promise<void>;
}

/** /health, /ready and /metrics on a port of their own. */
export async function startOpsServer(port: number, host: string, ready: Ready): Promise<OpsServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
      res.end(body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(405, 'application/json', JSON.stringify({ error: { code: 'METHOD_NOT_ALLOWED', message: 'GET only' } }));
      return;
    }
    const fail = () =>
      send(500, 'application/json', JSON.stringify({ error: { code: 'INTERNAL', message: 'internal error' } }));
    if (path === '/health') send(200, 'application/json', JSON.stringify({ status: 'ok' }));
    else if (path === '/ready') {
      ready().then((r) => send(r.status === 'ready' ? 200 : 503, 'application/json', JSON.stringify(r)), fail);
    } else if (path === '/metrics') {
      exposition().then(({ contentType, body }) => send(200, contentType, body), fail);
    } else send(404, 'application/json', JSON.stringify({ error: { code: 'NOT_FOUND', message: `no route ${path}` } }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return {
    port: bound,
    url: `http://${shown.includes(':') ? `[${shown}]` : shown}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
