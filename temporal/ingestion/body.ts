/**
 * Request-body and path-parameter validation for the ingestion component. Every failure is a 400 INVALID_ARGUMENT
 * whose `field` names the offending parameter; unknown body fields are refused (a typo must not pass silently).
 */
import type Koa from 'koa';
import { InvalidArgumentError } from '../../lib/errors.ts';
import { jsonObjectBody, requireUuid } from '../../lib/http.ts';
import { isUuid } from '../../lib/node-id.ts';

export type Body = Record<string, unknown>;

/** The JSON object body, with only `allowed` fields. A missing body counts as `{}` when `optional`. */
export function readBody(ctx: Koa.Context, allowed: readonly string[], optional = false): Body {
  const raw = (ctx.request as unknown as { body?: unknown }).body;
  if (optional && (raw === undefined || raw === null)) return {};
  const body = jsonObjectBody(ctx);
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key))
      throw new InvalidArgumentError(key, `is not a field of this request (allowed: ${allowed.join(', ')})`);
  }
  return body;
}

export function bodyUuid(body: Body, name: string): string {
  const v = body[name];
  if (v === undefined || v === null || v === '') throw new InvalidArgumentError(name, 'is required');
  if (typeof v !== 'string' || !isUuid(v)) throw new InvalidArgumentError(name, 'must be a UUID string');
  return v.toLowerCase();
}

export function bodyString(
  body: Body,
  name: string,
  opts: { maxLength: number; check?: (v: string) => boolean; checkHint?: string },
): string | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new InvalidArgumentError(name, 'must be a string');
  if (v.trim() === '') throw new InvalidArgumentError(name, 'must not be empty');
  if (v.length > opts.maxLength) throw new InvalidArgumentError(name, `must be at most ${opts.maxLength} characters`);
  if (opts.check && !opts.check(v)) throw new InvalidArgumentError(name, opts.checkHint ?? 'is malformed');
  return v;
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
  if (v === undefined || v === null) {
    if (opts.required) throw new InvalidArgumentError(name, 'is required');
    return undefined;
  }
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new InvalidArgumentError(name, 'must be an integer');
  if (v < opts.min || v > opts.max) throw new InvalidArgumentError(name, `must be between ${opts.min} and ${opts.max}`);
  return v;
}

export function bodyBool(body: Body, name: string): boolean | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw new InvalidArgumentError(name, 'must be true or false');
  return v;
}

/** A JSON object of at most `maxBytes` serialised. */
export function bodyObject(body: Body, name: string, maxBytes = 64 * 1024): Record<string, unknown> | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw new InvalidArgumentError(name, 'must be a JSON object');
  if (Buffer.byteLength(JSON.stringify(v)) > maxBytes)
    throw new InvalidArgumentError(name, `must be at most ${maxBytes} bytes as JSON`);
  return v as Record<string, unknown>;
}

export function pathUuid(ctx: Koa.Context, name: string): string {
  const params = (ctx as unknown as { params?: Record<string, string | undefined> }).params ?? {};
  return requireUuid(params[name], name);
}

/** A bigint id in the path (schedules): a positive integer that fits PostgreSQL's bigint. */
export function pathBigint(ctx: Koa.Context, name: string): string {
  const params = (ctx as unknown as { params?: Record<string, string | undefined> }).params ?? {};
  const v = params[name];
  if (v === undefined || v === '') throw new InvalidArgumentError(name, 'is required');
  if (!/^[1-9]\d{0,18}$/.test(v) || BigInt(v) > 9_223_372_036_854_775_807n)
    throw new InvalidArgumentError(name, 'must be a positive integer');
  return v;
}

/** A git ref as `git check-ref-format --allow-onelevel` accepts it (branch, tag, refs/..., or a commit id). */
export function isGitRef(v: string): boolean {
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c <= 0x20 || c === 0x7f) return false;
  }
  if (/[~^:?*[\\]/.test(v)) return false;
  if (v.startsWith('/') || v.startsWith('-') || v.startsWith('.') || v.endsWith('/') || v.endsWith('.')) return false;
  if (v.endsWith('.lock') || v.includes('..') || v.includes('@{') || v.includes('//') || v.includes('/.')) return false;
  return v !== '@';
}
