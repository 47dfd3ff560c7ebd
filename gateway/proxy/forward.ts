/**
 * The reverse proxy. A request is forwarded as it came: method, path and query, end-to-end headers (case,
 * order, repeats), and the body (never parsed). The body is read whole first, within the body deadline (body.ts:
 * 408 when it does not arrive in time): an upstream connection is only taken for a request that is ready to go, so
 * slow or half-sent bodies cannot hold the upstream pool. The response is streamed back unchanged.
 *
 * Failures, by when they happen:
 * - the connection cannot be opened (refused, unreachable, DNS): idempotent methods are tried again, up to
 *   `attempts` in all with exponential backoff; nothing of the request was sent, so this is safe. Then 503.
 *   Non-idempotent methods (POST, PATCH) are never retried.
 * - the connection opens but breaks before the response head arrives (reset, hang-up): 502, no retry (bytes went
 *   out; the upstream may have acted).
 * - no response head within `timeoutMs`: 504. The same limit applies to silence while a body streams; an event
 *   stream (text/event-stream) is exempt.
 * - a failure after the head was forwarded cannot change the status: the client connection is cut, and logged.
 */
import http from 'node:http';
import https from 'node:https';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type Koa from 'koa';
import { UpstreamError, type ServiceError } from '../../lib/errors.ts';
import type { Logger } from '../../lib/log.ts';
import { counter, histogram, secondsSince } from '../../lib/metrics.ts';
import { REQUEST_ID_HEADER } from '../../lib/request-id.ts';
import { endToEnd } from './headers.ts';
import type { UpstreamAgents } from './agents.ts';
import { readWholeBody, type BodyLimits } from './body.ts';

const upstreamCalls = counter(
  'ckg_gateway_upstream_requests_total',
  'Proxied calls by upstream and outcome (status class, or connect/timeout/disconnected/client_gone)',
  ['upstream', 'outcome'],
);
const upstreamLatency = histogram(
  'ckg_gateway_upstream_response_seconds',
  "Time to an upstream's response head, by upstream",
  ['upstream'],
);

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE']);
const CONNECT_FAILURES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

export interface Upstream {
  /** For logs: graph, ingestion, idp. */
  name: string;
  base: URL;
}

export interface ProxyOptions {
  agents: UpstreamAgents;
  timeoutMs: number;
  attempts: number;
  retryBaseMs: number;
  /** Keep the caller's X-Forwarded-* (TRUST_FORWARDED_HEADERS). */
  trustForwarded: boolean;
  /** The body deadline and size limit (BODY_TIMEOUT_SECONDS, MAX_BODY_BYTES). */
  body: BodyLimits;
  log: Logger;
}

type Failure =
  | { kind: 'connect'; error: Error }
  | { kind: 'disconnected'; error: Error }
  | { kind: 'timeout' }
  | { kind: 'client_gone' };

class AttemptFailed extends Error {
  constructor(readonly failure: Failure) {
    super(failure.kind);
  }
}

function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The upstream URL path: the upstream base path joined with the request path (after `stripPrefix`) and query. */
export function upstreamPath(base: URL, requestUrl: string, stripPrefix = ''): string {
  const rest = stripPrefix && requestUrl.startsWith(stripPrefix) ? requestUrl.slice(stripPrefix.length) : requestUrl;
  const basePath = base.pathname.replace(/\/+$/, '');
  const tail = rest.startsWith('/') || rest.startsWith('?') || rest === '' ? rest : '/' + rest;
  const joined = basePath + tail;
  return joined.startsWith('/') ? joined : '/' + joined;
}

const FORWARDED = new Set([
  'host',
  'content-length',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-forwarded-for',
  'forwarded',
  REQUEST_ID_HEADER.toLowerCase(),
]);

/**
 * The request's end-to-end headers with Host set to the upstream's and X-Forwarded-Host/Proto/For describing the
 * client's request, and X-Request-Id set to the id the gateway gave the request (lib/request-id.ts: the caller's
 * when acceptable, else a new one). The caller's own X-Forwarded-* are kept (extended) only when `trustForwarded` (the gateway sits
 * behind a proxy of ours); otherwise a client could make the identity provider build URLs for a host it chose.
 */
function forwardedHeaders(ctx: Koa.Context, upstream: Upstream, trustForwarded: boolean, body: Buffer): string[] {
  const out = endToEnd(ctx.req.rawHeaders, FORWARDED);
  // The body as read (a chunked one included) goes with its length.
  if (body.length > 0 || ctx.req.headers['content-length'] !== undefined || ctx.req.headers['transfer-encoding'])
    out.push('Content-Length', String(body.length));
  const remote = ctx.req.socket.remoteAddress ?? '';
  const prior = trustForwarded ? ctx.get('x-forwarded-for') : '';
  out.push('Host', upstream.base.host);
  out.push('X-Forwarded-Host', (trustForwarded && ctx.get('x-forwarded-host')) || ctx.get('host'));
  out.push('X-Forwarded-Proto', (trustForwarded && ctx.get('x-forwarded-proto')) || ctx.protocol);
  out.push('X-Forwarded-For', prior ? `${prior}, ${remote}` : remote);
  const requestId = (ctx.state as { requestId?: string }).requestId;
  if (requestId !== undefined) out.push(REQUEST_ID_HEADER, requestId);
  return out;
}

/**
 * Writes the upstream's status and headers after the ones the gateway set itself (X-Request-Id, CORS): an upstream
 * header replaces the gateway's of the same name, and repeated ones (Set-Cookie) stay repeated, in their order and
 * case. (`writeHead(status, rawArray)` on a response that already has headers would call setHeader per pair and
 * keep only the last Set-Cookie.)
 */
function writeUpstreamHead(out: http.ServerResponse, status: number, message: string | undefined, raw: string[]) {
  for (let i = 0; i < raw.length; i += 2) out.removeHeader(raw[i]!);
  for (let i = 0; i < raw.length; i += 2) out.appendHeader(raw[i]!, raw[i + 1]!);
  out.writeHead(status, message);
}

export interface ForwardOptions {
  /**
   * An upstream answer the gateway replaces with its own error (the one error shape) instead of passing it on: the
   * identity provider's 404s and 5xx (gateway/auth-proxy.ts).
   */
  replace?: (status: number, headers: http.IncomingHttpHeaders) => ServiceError | undefined;
}

export type Forward = (ctx: Koa.Context, upstream: Upstream, path: string, opts?: ForwardOptions) => Promise<void>;

/** One request to the upstream: resolves with its response, or rejects with how it failed (AttemptFailed). */
function attempt(
  options: ProxyOptions,
  ctx: Koa.Context,
  upstream: Upstream,
  path: string,
  headers: string[],
  body: Buffer,
): Promise<{ req: http.ClientRequest; res: http.IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const secure = upstream.base.protocol === 'https:';
    const request = secure ? https.request : http.request;
    let connected = false;
    let settled = false;
    const fail = (failure: Failure) => {
      if (settled) return;
      settled = true;
      ctx.res.off('close', onClientClose);
      reject(new AttemptFailed(failure));
    };
    const req = request({
      agent: secure ? options.agents.https : options.agents.http,
      protocol: upstream.base.protocol,
      hostname: upstream.base.hostname,
      port: upstream.base.port || (secure ? 443 : 80),
      method: ctx.method,
      path,
      headers,
      setHost: false,
    });
    const sendBody = () => {
      connected = true;
      req.end(body);
    };
    req.on('socket', (socket) => {
      if (socket.connecting) socket.once('connect', sendBody);
      else sendBody();
    });
    req.setTimeout(options.timeoutMs, () => {
      if (!settled) fail({ kind: 'timeout' });
      req.destroy();
    });
    req.on('error', (error) => {
      const code = errorCode(error);
      if (!connected && code !== undefined && CONNECT_FAILURES.has(code)) fail({ kind: 'connect', error });
      else fail({ kind: 'disconnected', error });
    });
    // The response closing before anything was written means the client went away.
    const onClientClose = () => {
      fail({ kind: 'client_gone' });
      req.destroy();
    };
    ctx.res.once('close', onClientClose);
    req.on('response', (res) => {
      if (settled) {
        res.destroy();
        return;
      }
      settled = true;
      ctx.res.off('close', onClientClose);
      resolve({ req, res });
    });
  });
}

export function createForward(options: ProxyOptions): Forward {
  const { log } = options;

  return async (ctx, upstream, path, opts = {}) => {
    const body = await readWholeBody(ctx, options.body);
    const started = performance.now();
    const headers = forwardedHeaders(ctx, upstream, options.trustForwarded, body);
    const retryable = IDEMPOTENT.has(ctx.method);
    for (let n = 1; ; n++) {
      let out: { req: http.ClientRequest; res: http.IncomingMessage };
      try {
        out = await attempt(options, ctx, upstream, path, headers, body);
      } catch (thrown) {
        const failure = (thrown as AttemptFailed).failure;
        upstreamCalls.inc({ upstream: upstream.name, outcome: failure.kind });
        const fields = { upstream: upstream.name, method: ctx.method, path: ctx.path, attempt: n };
        if (failure.kind === 'client_gone') {
          log.info('client_aborted', fields);
          ctx.respond = false;
          ctx.status = 499;
          return;
        }
        const again = failure.kind === 'connect' && retryable && n < options.attempts;
        log.warning('upstream_error', {
          ...fields,
          kind: failure.kind,
          ...('error' in failure ? { error: failure.error } : {}),
          retrying: again,
        });
        if (again) {
          await sleep(options.retryBaseMs * 2 ** (n - 1));
          continue;
        }
        if (failure.kind === 'connect')
          throw new UpstreamError('UPSTREAM_UNAVAILABLE', `the ${upstream.name} component is unavailable`);
        if (failure.kind === 'timeout')
          throw new UpstreamError('UPSTREAM_TIMEOUT', `the ${upstream.name} component did not answer in time`);
        throw new UpstreamError('UPSTREAM_DISCONNECTED', `the ${upstream.name} component closed the connection`);
      }
      const { req, res } = out;
      upstreamLatency.observe({ upstream: upstream.name }, secondsSince(started));
      if ((res.headers['content-type'] ?? '').startsWith('text/event-stream')) req.setTimeout(0);
      const status = res.statusCode ?? 502;
      upstreamCalls.inc({ upstream: upstream.name, outcome: `${Math.floor(status / 100)}xx` });
      const replaced = opts.replace?.(status, res.headers);
      if (replaced) {
        res.resume();
        log.info('upstream_response_replaced', { upstream: upstream.name, method: ctx.method, path: ctx.path, status });
        throw replaced;
      }
      ctx.respond = false;
      ctx.status = status;
      writeUpstreamHead(ctx.res, status, res.statusMessage, endToEnd(res.rawHeaders));
      try {
        await pipeline(res, ctx.res);
      } catch (err) {
        log.warning('upstream_error', {
          upstream: upstream.name,
          method: ctx.method,
          path: ctx.path,
          kind: 'body_interrupted',
          error: err,
        });
        ctx.res.destroy();
        req.destroy();
      }
      const fields = {
        upstream: upstream.name,
        method: ctx.method,
        path: ctx.path,
        status,
        ms: Math.round((performance.now() - started) * 10) / 10,
      };
      if (status >= 500) log.error('upstream_response', fields);
      else if (status >= 400) log.info('upstream_response', fields);
      else log.debug('upstream_response', fields);
      return;
    }
  };
}
