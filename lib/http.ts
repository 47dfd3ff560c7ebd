/**
 * Koa pieces shared by the graph and ingestion components: the error middleware (first in the chain), request
 * logging, /health, and parsers for query and path parameters that throw InvalidArgumentError naming the field.
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type Koa from 'koa';
import { ServiceError, toServiceError } from './errors.ts';
import type { Logger } from './log.ts';
import { encodeCursor, type CursorKey } from './validate.ts';

/**
 * Header room of every server: Node's default (16 KB) cut a long URL off with a bare 431 and a reset connection. With
 * 96 KB the request is read and refused in the one error shape: a request target above MAX_TARGET_BYTES is 414.
 */
export const MAX_HEADER_BYTES = 96 * 1024;
export const MAX_TARGET_BYTES = 8 * 1024;

/** Throws 414 (the one error body) for a request target longer than MAX_TARGET_BYTES. */
export function checkRequestTarget(url: string): void {
  if (url.length > MAX_TARGET_BYTES) {
    throw new ServiceError(
      'INVALID_ARGUMENT',
      414,
      `path: the request target is ${url.length} bytes; at most ${MAX_TARGET_BYTES} are accepted`,
    );
  }
}

const CLIENT_ERRORS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', `headers: more than ${MAX_HEADER_BYTES} bytes`],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'request: not received in time'],
  HPE_HEADERS_TIMEOUT: [408, 'Request Timeout', 'headers: not received in time'],
};

/**
 * What Node answers itself (a request it cannot parse, headers too large) in the one error shape instead of an empty
 * body; the connection is closed after the answer.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, reason, message] = CLIENT_ERRORS[err.code ?? ''] ?? [400, 'Bad Request', 'request: malformed HTTP'];
  const field = message.slice(0, message.indexOf(':'));
  const body = JSON.stringify({ error: { code: 'INVALID_ARGUMENT', message, field } });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * How long a client may take to send a whole request (headers and body) before Node answers 408 in the one error shape
 * and closes the connection (docs/security.md, "Half-sent bodies"); Node's default is 300 s, during which a request
 * that never finishes its body holds its connection and whatever the handler took for it. Headers must arrive within
 * REQUEST_HEADERS_TIMEOUT_MS. Node checks both every CONNECTIONS_CHECK_MS (its default, 30 s, would let a 15 s limit
 * run to 45 s).
 */
export const REQUEST_TIMEOUT_MS = 15_000;
export const REQUEST_HEADERS_TIMEOUT_MS = 10_000;
const CONNECTIONS_CHECK_MS = 1_000;

/** An HTTP server with the header room above, the request deadlines, and client errors answered in the one error shape. */
export function createHttpServer(
  handler: http.RequestListener,
  limits: { requestTimeoutMs?: number } = {},
): http.Server {
  const requestTimeout = limits.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const server = http.createServer(
    {
      maxHeaderSize: MAX_HEADER_BYTES,
      requestTimeout,
      headersTimeout: Math.min(REQUEST_HEADERS_TIMEOUT_MS, requestTimeout),
      connectionsCheckingInterval: CONNECTIONS_CHECK_MS,
    },
    handler,
  );
  server.on('clientError', answerClientError);
  return server;
}

/** Starts `app` on port/host with createHttpServer; resolves once it listens. */
export function listen(app: Koa, port: number, host: string): Promise<http.Server> {
  const handle = app.callback();
  const server = createHttpServer((req, res) => void handle(req, res));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** Turns any thrown error into the one error body; logs 4xx at info and 5xx at error. */
export function errorMiddleware(log: Logger): Koa.Middleware {
  return async (ctx, next) => {
    const started = Date.now();
    try {
      checkRequestTarget(ctx.url);
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new ServiceError('NOT_FOUND', 404, `no route for ${ctx.method} ${ctx.path}`);
      }
      // The router's allowedMethods() answers 405 in plain text (its Allow header stays): give it the error body.
      if (ctx.status === 405 && (ctx.body === undefined || typeof ctx.body === 'string')) {
        throw new ServiceError('METHOD_NOT_ALLOWED', 405, `${ctx.method} is not allowed on ${ctx.path}`);
      }
    } catch (thrown) {
      const err = toServiceError(thrown);
      ctx.status = err.status;
      ctx.body = err.toBody();
      if (err.retryAfterSeconds !== undefined)
        ctx.set('Retry-After', String(Math.max(1, Math.ceil(err.retryAfterSeconds))));
      const fields = {
        method: ctx.method,
        path: ctx.path,
        status: err.status,
        code: err.code,
        ms: Date.now() - started,
      };
      if (err.status >= 500) log.error('request_failed', { ...fields, error: thrown });
      else log.info('request_rejected', { ...fields, message: err.message });
    }
  };
}

/**
 * GET /health, the liveness probe: `{ status: "ok" }` while the process can still serve. Each check returns a reason
 * when it cannot (a wedged pool: lib/db.ts poolLiveness); then 503 in the one error shape, so a probe restarts it.
 */
export function healthRoute(checks: ReadonlyArray<() => string | undefined> = []): Koa.Middleware {
  return (ctx, next) => {
    if (ctx.method === 'GET' && ctx.path === '/health') {
      for (const check of checks) {
        const problem = check();
        if (problem) throw new ServiceError('UNAVAILABLE', 503, `not alive: ${problem}`, { expose: true });
      }
      ctx.body = { status: 'ok' };
      return;
    }
    return next();
  };
}

// The parameter and body parsers live in the one validator (lib/validate.ts); re-exported for existing imports.
export {
  PAGE,
  decodeCursor,
  decodeCursorJson,
  encodeCursor,
  queryBool,
  queryEnum,
  queryInt,
  queryString,
  queryUuid,
  requireUuid,
  type CursorKey,
} from './validate.ts';

/**
 * Builds a `{ items, next_cursor }` page from rows fetched with limit + 1: the extra row, when present, says another
 * page follows, and the cursor is the last returned row's sort key.
 */
export function toPage<R, J, K extends object = CursorKey>(
  rows: readonly R[],
  limit: number,
  toJson: (row: R) => J,
  keyOf: (row: R) => K,
): { items: J[]; next_cursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { items: page.map(toJson), next_cursor: rows.length > limit && last ? encodeCursor(keyOf(last)) : null };
}
