/**
 * The outermost Koa middleware of every HTTP component: gives the request its id (lib/request-id.ts: accepted from
 * X-Request-Id or made, returned in the response header, present in every log line of the request), and counts it
 * in `ckg_http_requests_total` and `ckg_http_request_duration_seconds` by method, route and status.
 *
 * The route label is a template, never the raw path (which holds node ids and UUIDs): the @koa/router pattern that
 * matched, or `ctx.state.route` set by a handler outside the router, else `unmatched`. A long-lived response (an
 * event stream, `ctx.state.longLived`) is counted but its duration is not a latency and is not observed.
 */
import type Koa from 'koa';
import { counter, histogram, secondsSince } from './metrics.ts';
import { acceptRequestId, REQUEST_ID_HEADER, withRequestId } from './request-id.ts';

const requests = counter('ckg_http_requests_total', 'HTTP requests answered, by method, route and status', [
  'method',
  'route',
  'status',
]);
const duration = histogram('ckg_http_request_duration_seconds', 'HTTP request latency by method, route and status', [
  'method',
  'route',
  'status',
]);

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export interface ObservedState {
  requestId?: string;
  /** The route template of a handler outside @koa/router. */
  route?: string;
  /** An event stream: no latency observation. */
  longLived?: boolean;
}

export function routeLabel(ctx: Koa.Context): string {
  const state = ctx.state as ObservedState;
  if (state.route) return state.route;
  const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  return typeof matched === 'string' ? matched : 'unmatched';
}

export function observeRequests(): Koa.Middleware {
  return async (ctx, next) => {
    const id = acceptRequestId(ctx.get(REQUEST_ID_HEADER) || undefined);
    (ctx.state as ObservedState).requestId = id;
    ctx.set(REQUEST_ID_HEADER, id);
    const started = performance.now();
    try {
      await withRequestId(id, next);
    } finally {
      const labels = {
        method: METHODS.has(ctx.method) ? ctx.method : 'OTHER',
        route: routeLabel(ctx),
        status: String(ctx.status),
      };
      requests.inc(labels);
      if (!(ctx.state as ObservedState).longLived) duration.observe(labels, secondsSince(started));
    }
  };
}
