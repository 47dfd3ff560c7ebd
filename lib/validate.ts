/**
 * The request rules of the service: text, query and path parameters and cursors, for the graph and the ingestion
 * component alike. JSON bodies are read by their route schemas (lib/api/fields.ts builds them on these rules, with
 * the same messages). Every failure is InvalidArgumentError (400 INVALID_ARGUMENT) naming the field.
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
import { InvalidArgumentError } from './errors.ts';
import { isUuid } from './node-id.ts';

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

const MAX_BIGINT = 9_223_372_036_854_775_807n;

export function isBigintId(v: string): boolean {
  return /^[1-9]\d{0,18}$/.test(v) && BigInt(v) <= MAX_BIGINT;
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
