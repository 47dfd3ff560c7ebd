/**
 * The one REST client of the service, used by the MCP tools, the CLI and the tests: calls by method and path, or of
 * a declared route (`request`: path, query and body typed from its schemas in lib/api/routes/, the answer typed from
 * its response schema), answering the parsed JSON or throwing ApiError with the service's error code. Who answers is
 * the caller's choice: inside the gateway the components themselves (`base` picks the upstream, the caller's token
 * is forwarded), from the CLI the gateway. Server-sent events: lib/api/sse.ts.
 */
import type { z } from 'zod';
import type { BodyOf, Reply, RouteDef } from './route.ts';

export interface ApiRequest {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
}

export interface Api {
  call<T = unknown>(method: string, path: string, req?: ApiRequest): Promise<T>;
}

/** A non-2xx answer: the service's error body, or what was received instead. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly field?: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export interface HttpApiOptions {
  /** The base URL for a request (e.g. the gateway, or the component that serves the path). */
  base: (method: string, path: string) => string;
  /** Headers of every request, e.g. the bearer token (asked for each request, so a refreshed token is used). */
  headers: () => Record<string, string> | Promise<Record<string, string>>;
  timeoutMs: number;
}

export function queryString(query: ApiRequest['query']): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) params.set(k, String(v));
  const s = params.toString();
  return s === '' ? '' : `?${s}`;
}

/** The error body `{ error: { code, message, field?, details? } }` → ApiError; anything else names the status. */
export function toApiError(status: number, text: string): ApiError {
  try {
    const body = JSON.parse(text) as {
      error?: { code?: string; message?: string; details?: Record<string, unknown>; field?: string };
    };
    if (body.error?.code && body.error.message) {
      return new ApiError(status, body.error.code, body.error.message, body.error.details, body.error.field);
    }
  } catch {
    // not JSON: fall through
  }
  return new ApiError(status, `HTTP_${status}`, `HTTP ${status}: ${text.slice(0, 200) || 'no body'}`);
}

export function createHttpApi(opts: HttpApiOptions): Api {
  return {
    async call<T>(method: string, path: string, req: ApiRequest = {}): Promise<T> {
      const url = opts.base(method, path).replace(/\/+$/, '') + path + queryString(req.query);
      const headers: Record<string, string> = { accept: 'application/json', ...(await opts.headers()) };
      if (req.body !== undefined) headers['content-type'] = 'application/json';
      let res: Response;
      try {
        res = await fetch(url, {
          method,
          headers,
          body: req.body === undefined ? undefined : JSON.stringify(req.body),
          signal: AbortSignal.timeout(opts.timeoutMs),
        });
      } catch (err) {
        const timedOut = err instanceof Error && err.name === 'TimeoutError';
        const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : String(err);
        throw new ApiError(
          timedOut ? 504 : 503,
          timedOut ? 'UPSTREAM_TIMEOUT' : 'UPSTREAM_UNAVAILABLE',
          timedOut
            ? `${method} ${path}: no answer within ${opts.timeoutMs} ms`
            : `${method} ${path}: cannot reach ${new URL(url).origin} (${cause})`,
        );
      }
      const text = await res.text();
      if (!res.ok) throw toApiError(res.status, text);
      return (text === '' ? undefined : JSON.parse(text)) as T;
    },
  };
}

type Params<D extends RouteDef> = NonNullable<D['params']>;
type Query<D extends RouteDef> = NonNullable<D['query']>;

/** What a declared route takes: its path parameters, query and body, typed from its schemas. */
export type RouteRequest<D extends RouteDef> = ([keyof Params<D>] extends [never]
  ? { params?: undefined }
  : string extends keyof Params<D>
    ? { params?: undefined }
    : { params: { [K in keyof Params<D>]: string | number } }) & {
  query?: { [K in keyof Query<D>]?: string | number | boolean | undefined };
} & ([BodyOf<D>] extends [never]
    ? { body?: undefined }
    : NonNullable<D['body']> extends { required: true }
      ? { body: z.input<BodyOf<D>> }
      : { body?: z.input<BodyOf<D>> });

/** The path of a route with its parameters filled in (each percent-encoded). */
export function routePath(template: string, params: Record<string, string | number> = {}): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = params[name];
    if (v === undefined) throw new Error(`${template}: path parameter ${name} is missing`);
    return encodeURIComponent(String(v));
  });
}

/** Calls a declared route (lib/api/routes/) through `api`. */
export function request<D extends RouteDef>(api: Api, def: D, req: RouteRequest<D>): Promise<Reply<D>> {
  const r = req as { params?: Record<string, string | number>; query?: ApiRequest['query']; body?: unknown };
  return api.call<Reply<D>>(def.method, routePath(def.path, r.params), { query: r.query, body: r.body });
}
