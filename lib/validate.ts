/**
 * The one request validator of the service: query and path parameters, cursors and JSON bodies, for the graph and
 * the ingestion component alike. Every failure is InvalidArgumentError (400 INVALID_ARGUMENT) naming the field.
 *
 * Rules, the same for every field:
 * - text: surrounding whitespace is trimmed; blank is "must not be empty"; a NUL character, a lone surrogate or U+FFFD
 *   (what invalid UTF-8 decodes to) is refused, since PostgreSQL cannot store the first two and the third means the
 *   client's bytes were not UTF-8. The same check runs over every key and string of JSON object fields.
 * - null: accepted only where the OpenAPI document types the field as nullable (`nullable: true`, e.g. access_token:
 *   null removes the token); elsewhere it is 400, never silently "absent" or "default".
 * - unknown body fields are refused, so a misspelt key never silently does nothing.
 * - ids: UUIDs are checked before they reach SQL (and lower-cased); cursors carry an ISO timestamp and an id of the
 *   list's kind (UUID or positive bigint), so a forged cursor is 400, not a SQL cast error.
 */
import type Koa from 'koa';
import { InvalidArgumentError } from './errors.ts';
import { MAX_REF_BYTES, gitRefProblem } from './git-ref.ts';
import { isUuid } from './node-id.ts';

export type Body = Record<string, unknown>;
type Query = Record<string, string | string[] | undefined>;

// ---------------------------------------------------------------------------------------------------------- text

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string cannot be accepted as text, or undefined when it can. */
export function textProblem(v: string): string | undefined {
  if (v.includes('\u0000')) return 'must not contain NUL characters';
  if (v.includes('\uFFFD')) return 'must be valid UTF-8';
  if (LONE_SURROGATE.test(v)) return 'must be valid UTF-8 (it holds an unpaired surrogate)';
  return undefined;
}

/** Throws naming `field` when `v` is not acceptable text (see textProblem). */
export function checkText(field: string, v: string): string {
  const problem = textProblem(v);
  if (problem) throw new InvalidArgumentError(field, problem);
  return v;
}

/** Checks every key and string inside a JSON value (objects, arrays) as text; the field named is the first bad path. */
export function checkJsonText(field: string, v: unknown, depth = 0): void {
  if (depth > 64) throw new InvalidArgumentError(field, 'is nested too deeply');
  if (typeof v === 'string') {
    checkText(field, v);
  } else if (Array.isArray(v)) {
    v.forEach((x, i) => checkJsonText(`${field}[${i}]`, x, depth + 1));
  } else if (v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      checkText(`${field}.${k}`, k);
      checkJsonText(`${field}.${k}`, x, depth + 1);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------- bodies

/** Reads a JSON object body (parsed by @koa/bodyparser) or throws naming `body`. */
export function jsonObjectBody(ctx: Koa.Context): Body {
  const body = (ctx.request as unknown as { body?: unknown }).body;
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new InvalidArgumentError('body', 'must be a JSON object');
  }
  return body as Body;
}

/** Refuses any field of `body` not in `allowed`. */
export function refuseUnknown(body: Body, allowed: readonly string[]): void {
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) {
      checkText('body', key);
      throw new InvalidArgumentError(key, `is not a field of this request (allowed: ${allowed.join(', ')})`);
    }
  }
}

/** The JSON object body, with only `allowed` fields. A missing body counts as `{}` when `optional`. */
export function readBody(ctx: Koa.Context, allowed: readonly string[], optional = false): Body {
  const raw = (ctx.request as unknown as { body?: unknown }).body;
  if (optional && (raw === undefined || raw === null)) return {};
  const body = jsonObjectBody(ctx);
  refuseUnknown(body, allowed);
  return body;
}

function notNull(name: string, kind: string): never {
  throw new InvalidArgumentError(name, `must be ${kind}, not null (leave the field out to keep its default)`);
}

export interface StringOptions {
  maxLength: number;
  required?: boolean;
  /** null is accepted and returned as null (only for fields the OpenAPI document types as nullable). */
  nullable?: boolean;
  check?: (v: string) => boolean;
  checkHint?: string;
}

/** A text field, trimmed. Absent → undefined (or 400 when required). */
export function bodyString(
  body: Body,
  name: string,
  opts: StringOptions & { nullable: true },
): string | null | undefined;
export function bodyString(body: Body, name: string, opts: StringOptions & { required: true }): string;
export function bodyString(body: Body, name: string, opts: StringOptions): string | undefined;
export function bodyString(body: Body, name: string, opts: StringOptions): string | null | undefined {
  const v = body[name];
  if (v === undefined) {
    if (opts.required) throw new InvalidArgumentError(name, 'is required');
    return undefined;
  }
  if (v === null) {
    if (opts.nullable) return null;
    if (opts.required) throw new InvalidArgumentError(name, 'is required');
    return notNull(name, 'a string');
  }
  if (typeof v !== 'string') throw new InvalidArgumentError(name, 'must be a string');
  const t = checkText(name, v).trim();
  if (t === '') throw new InvalidArgumentError(name, 'must not be empty');
  if (t.length > opts.maxLength) throw new InvalidArgumentError(name, `must be at most ${opts.maxLength} characters`);
  if (opts.check && !opts.check(t)) throw new InvalidArgumentError(name, opts.checkHint ?? 'is malformed');
  return t;
}

/** A git ref name (lib/git-ref.ts: git's check-ref-format rules, never starting with '-'), trimmed. */
export function bodyGitRef(body: Body, name: string): string | undefined {
  const v = bodyString(body, name, { maxLength: MAX_REF_BYTES });
  if (v === undefined) return undefined;
  const problem = gitRefProblem(v);
  if (problem) throw new InvalidArgumentError(name, `must be a valid git ref: it ${problem}`);
  return v;
}

export function bodyUuid(body: Body, name: string): string {
  const v = body[name];
  if (v === undefined || v === null || v === '') throw new InvalidArgumentError(name, 'is required');
  if (typeof v !== 'string' || !isUuid(v.trim())) throw new InvalidArgumentError(name, 'must be a UUID string');
  return v.trim().toLowerCase();
}

export function bodyInt(body: Body, name: string, opts: { required: true; min: number; max: number }): number;
export function bodyInt(
  body: Body,
  name: string,
  opts: { required?: false; min: number; max: number },
): number | undefined;
export function bodyInt(
  body: Body,
  name: string,
  opts: { required?: boolean; min: number; max: number },
): number | undefined {
  const v = body[name];
  if (v === undefined) {
    if (opts.required) throw new InvalidArgumentError(name, 'is required');
    return undefined;
  }
  if (v === null) return opts.required ? notNull(name, 'an integer') : notNull(name, 'an integer');
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new InvalidArgumentError(name, 'must be an integer');
  if (v < opts.min || v > opts.max) throw new InvalidArgumentError(name, `must be between ${opts.min} and ${opts.max}`);
  return v;
}

export function bodyBool(body: Body, name: string): boolean | undefined {
  const v = body[name];
  if (v === undefined) return undefined;
  if (v === null) return notNull(name, 'true or false');
  if (typeof v !== 'boolean') throw new InvalidArgumentError(name, 'must be true or false');
  return v;
}

/** A JSON object of at most `maxBytes` serialised, its keys and strings checked as text. */
export function bodyObject(body: Body, name: string, maxBytes = 64 * 1024): Record<string, unknown> | undefined {
  const v = body[name];
  if (v === undefined) return undefined;
  if (v === null) return notNull(name, 'a JSON object');
  if (typeof v !== 'object' || Array.isArray(v)) throw new InvalidArgumentError(name, 'must be a JSON object');
  if (Buffer.byteLength(JSON.stringify(v)) > maxBytes)
    throw new InvalidArgumentError(name, `must be at most ${maxBytes} bytes as JSON`);
  checkJsonText(name, v);
  return v as Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------------------- query

/** Page size: `limit`, default 50, at most 200, for every list endpoint. */
export const PAGE = { default: 50, min: 1, max: 200 } as const;

function single(query: Query, name: string): string | undefined {
  const v = query[name];
  if (Array.isArray(v)) throw new InvalidArgumentError(name, 'must be given once');
  if (v === undefined || v === '') return undefined;
  return checkText(name, v);
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
  if (!/^-?\d{1,16}$/.test(v)) throw new InvalidArgumentError(name, 'must be an integer');
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

// ---------------------------------------------------------------------------------------------------------- path

function params(ctx: Koa.Context): Record<string, string | undefined> {
  return (ctx as unknown as { params?: Record<string, string | undefined> }).params ?? {};
}

export function pathUuid(ctx: Koa.Context, name: string): string {
  return requireUuid(params(ctx)[name], name);
}

const MAX_BIGINT = 9_223_372_036_854_775_807n;

export function isBigintId(v: string): boolean {
  return /^[1-9]\d{0,18}$/.test(v) && BigInt(v) <= MAX_BIGINT;
}

/** A bigint id in the path (schedules): a positive integer that fits PostgreSQL's bigint. */
export function pathBigint(ctx: Koa.Context, name: string): string {
  const v = params(ctx)[name];
  if (v === undefined || v === '') throw new InvalidArgumentError(name, 'is required');
  if (!isBigintId(v)) throw new InvalidArgumentError(name, 'must be a positive integer');
  return v;
}

// ---------------------------------------------------------------------------------------------------------- cursors

/**
 * Keyset cursors: an opaque base64url of the last item's sort key. Lists are ordered newest first by
 * (created_at, id); the cursor holds both, so pages stay stable while rows are added.
 */
export interface CursorKey {
  t: string;
  id: string;
}

/** Encodes any JSON sort key as an opaque cursor (lists use CursorKey; searches page by a key of their own). */
export function encodeCursor(key: object): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

/**
 * Decodes a cursor made by encodeCursor into its JSON value (the caller checks its fields), or throws naming the
 * parameter.
 */
export function decodeCursorJson(value: string, name = 'cursor'): unknown {
  if (value.length <= 4096 && /^[A-Za-z0-9_-]+$/.test(value)) {
    try {
      return JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as unknown;
    } catch {
      // fall through
    }
  }
  throw new InvalidArgumentError(name, 'is not a cursor this service issued');
}

/** A UTC timestamp as this service writes them in cursors (toISOString, or to_char with microseconds). */
const ISO_TIME = /^[1-9]\d{3}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

/** A real calendar time (Feb 30 is refused: PostgreSQL would reject it). */
function isIsoTime(t: string): boolean {
  if (!ISO_TIME.test(t)) return false;
  const ms = Date.parse(t);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 19) === t.slice(0, 19);
}

/**
 * The cursor parameter: undefined when absent, else its key, whose id is of the list's kind (`uuid` for sources and
 * syncs, `bigint` for issues and schedules, `token` a short word of letters, digits and `_.:-`); anything else is 400
 * naming the parameter.
 */
export function decodeCursor(
  query: Query,
  idKind: 'uuid' | 'bigint' | 'token' = 'token',
  name = 'cursor',
): CursorKey | undefined {
  const v = single(query, name);
  if (v === undefined) return undefined;
  if (v.length <= 1024 && /^[A-Za-z0-9_-]+$/.test(v)) {
    try {
      const parsed = JSON.parse(Buffer.from(v, 'base64url').toString('utf8')) as unknown;
      if (typeof parsed === 'object' && parsed !== null) {
        const { t, id } = parsed as { t?: unknown; id?: unknown };
        if (
          typeof t === 'string' &&
          typeof id === 'string' &&
          isIsoTime(t) &&
          (idKind === 'uuid' ? isUuid(id) : idKind === 'bigint' ? isBigintId(id) : /^[\w.:-]{1,200}$/.test(id))
        ) {
          return { t, id: idKind === 'uuid' ? id.toLowerCase() : id };
        }
      }
    } catch {
      // fall through
    }
  }
  throw new InvalidArgumentError(name, 'is not a cursor this service issued for this list');
}
