/**
 * Koa pieces shared by the graph and ingestion components: the error middleware (first in the chain), request
 * logging, /health, and parsers for query and path parameters that throw InvalidArgumentError naming the field.
 */
import type Koa from 'koa';
import { InvalidArgumentError, ServiceError, toServiceError } from './errors.ts';
import type { Logger } from './log.ts';
import { isUuid } from './node-id.ts';

/** Turns any thrown error into the one error body; logs 4xx at info and 5xx at error. */
export function errorMiddleware(log: Logger): Koa.Middleware {
  return async (ctx, next) => {
    const started = Date.now();
    try {
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

export function healthRoute(): Koa.Middleware {
  return (ctx, next) => {
    if (ctx.method === 'GET' && ctx.path === '/health') {
      ctx.body = { status: 'ok' };
      return;
    }
    return next();
  };
}

type Query = Record<string, string | string[] | undefined>;

function single(query: Query, name: string): string | undefined {
  const v = query[name];
  if (Array.isArray(v)) throw new InvalidArgumentError(name, 'must be given once');
  return v === '' ? undefined : v;
}

export function queryString(
  query: Query,
  name: string,
  opts: { required?: boolean; maxLength?: number } = {},
): string | undefined {
  const v = single(query, name);
  if (v === undefined) {
    if (opts.required) throw new InvalidArgumentError(name, 'is required');
    return undefined;
  }
  if (opts.maxLength !== undefined && v.length > opts.maxLength)
    throw new InvalidArgumentError(name, `must be at most ${opts.maxLength} characters`);
  return v;
}

export function queryInt(query: Query, name: string, opts: { default: number; min: number; max: number }): number {
  const v = single(query, name);
  if (v === undefined) return opts.default;
  if (!/^-?\d+$/.test(v)) throw new InvalidArgumentError(name, 'must be an integer');
  const n = Number(v);
  if (n < opts.min || n > opts.max) throw new InvalidArgumentError(name, `must be between ${opts.min} and ${opts.max}`);
  return n;
}

export function queryBool(query: Query, name: string, fallback: boolean): boolean {
  const v = single(query, name);
  if (v === undefined) return fallback;
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw new InvalidArgumentError(name, 'must be true or false');
}

export function queryEnum<T extends string>(query: Query, name: string, values: readonly T[]): T | undefined {
  const v = single(query, name);
  if (v === undefined) return undefined;
  if (!(values as readonly string[]).includes(v))
    throw new InvalidArgumentError(name, `must be one of ${values.join(', ')}`);
  return v as T;
}

export function requireUuid(value: string | undefined, name: string): string {
  if (value === undefined || value === '') throw new InvalidArgumentError(name, 'is required');
  if (!isUuid(value)) throw new InvalidArgumentError(name, 'must be a UUID');
  return value.toLowerCase();
}

export function queryUuid(query: Query, name: string, opts: { required?: boolean } = {}): string | undefined {
  const v = single(query, name);
  if (v === undefined) {
    if (opts.required) throw new InvalidArgumentError(name, 'is required');
    return undefined;
  }
  return requireUuid(v, name);
}

/** Page size: `limit`, default 50, at most 200, for every list endpoint. */
export const PAGE = { default: 50, min: 1, max: 200 } as const;

/**
 * Keyset cursors: an opaque base64url of the last item's sort key. Lists are ordered newest first by
 * (created_at, id); the cursor holds both, so pages stay stable while rows are added.
 */
export interface CursorKey {
  t: string;
  id: string;
}

/** Encodes any JSON sort key as an opaque cursor (lists use CursorKey; search pages their own key). */
export function encodeCursor(key: object): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

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

/** Decodes a cursor made by encodeCursor into its JSON value, or throws naming the parameter. */
export function decodeCursorJson(value: string, name = 'cursor'): unknown {
  try {
    return JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as unknown;
  } catch {
    throw new InvalidArgumentError(name, 'is not a cursor this service issued');
  }
}

export function decodeCursor(query: Query, name = 'cursor'): CursorKey | undefined {
  const v = single(query, name);
  if (v === undefined) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(v, 'base64url').toString('utf8')) as unknown;
    if (
      typeof parsed === 'object' &&
      parsed !== null &&
      typeof (parsed as CursorKey).t === 'string' &&
      typeof (parsed as CursorKey).id === 'string' &&
      !Number.isNaN(Date.parse((parsed as CursorKey).t))
    ) {
      return parsed as CursorKey;
    }
  } catch {
    // fall through
  }
  throw new InvalidArgumentError(name, 'is not a cursor this service issued');
}

/** Reads a JSON object body (parsed by @koa/bodyparser) or throws naming `body`. */
export function jsonObjectBody(ctx: Koa.Context): Record<string, unknown> {
  const body = (ctx.request as unknown as { body?: unknown }).body;
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new InvalidArgumentError('body', 'must be a JSON object');
  }
  return body as Record<string, unknown>;
}
