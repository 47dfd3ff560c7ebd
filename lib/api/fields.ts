/**
 * The fields route schemas are built from: zod schemas that check a value exactly as lib/validate.ts's rules say
 * (text trimmed and checked, null only where nullable, ids checked before SQL) and fail with the same messages, so a
 * route declared with them answers the same 400 naming the same field. Each field's JSON Schema (what the OpenAPI
 * documents show) comes from the same zod schema; query and path parameters, which arrive as strings, are documented
 * as the type they are parsed into (an integer `limit`, a boolean `tests`), see `queryField`.
 *
 * A check that must report a field other than the one it sits on (a key inside config_overrides) puts that field in
 * its issue's `params.field`; lib/api/route.ts turns the first issue into InvalidArgumentError(field, message).
 */
import { z } from 'zod';
import { InvalidArgumentError } from '../errors.ts';
import { MAX_REF_BYTES, gitRefProblem } from '../git-ref.ts';
import { decodeNodeId, isUuid } from '../node-id.ts';
import {
  PAGE,
  decodeCursor,
  isBigintId,
  queryBool,
  queryEnum,
  queryInt,
  queryString,
  queryUuid,
  requireUuid,
  textProblem,
  type CursorKey,
} from '../validate.ts';

export { PAGE };

const notNull = (kind: string) => `must be ${kind}, not null (leave the field out to keep its default)`;

/** A refinement that runs a lib/ checker which throws InvalidArgumentError, keeping the field it names. */
export function checkedBy<T>(check: (v: T) => void) {
  return (ctx: z.core.ParsePayload<T>) => {
    try {
      check(ctx.value);
    } catch (err) {
      if (!(err instanceof InvalidArgumentError)) throw err;
      ctx.issues.push({
        code: 'custom',
        input: ctx.value,
        message: err.reason,
        params: { field: err.field },
      });
    }
  };
}

// ---------------------------------------------------------------------------------------------------------- body

export interface TextOptions {
  max: number;
  /** Absent or null is 400 `is required`. */
  required?: boolean;
  /** null is accepted as null (for fields the document types as nullable, e.g. access_token: null removes it). */
  nullable?: boolean;
  check?: (v: string) => boolean;
  hint?: string;
  description?: string;
}

function baseText(o: { required?: boolean; kind?: string; message?: string }) {
  return z.string({
    error: (iss) =>
      iss.input === undefined || (iss.input === null && o.required)
        ? 'is required'
        : iss.input === null
          ? notNull(o.kind ?? 'a string')
          : (o.message ?? 'must be a string'),
  });
}

/** A text field's checks (lib/validate.ts bodyString): valid text, trimmed, not blank, at most `max` characters. */
function textCore(o: TextOptions) {
  let s = baseText(o)
    .refine((v) => textProblem(v) === undefined, { error: (iss) => textProblem(iss.input as string), abort: true })
    .overwrite((v) => v.trim())
    .min(1, { error: 'must not be empty', abort: true })
    .max(o.max, { error: `must be at most ${o.max} characters`, abort: true });
  if (o.check) s = s.refine(o.check, { error: o.hint ?? 'is malformed', abort: true });
  return o.description ? s.describe(o.description) : s;
}

/** A text field: trimmed, not blank, at most `max` characters, valid text (lib/validate.ts textProblem). */
export function text(o: TextOptions & { nullable: true }): z.ZodOptional<z.ZodNullable<z.ZodString>>;
export function text(o: TextOptions & { required: true }): z.ZodString;
export function text(o: TextOptions): z.ZodOptional<z.ZodString>;
export function text(o: TextOptions): z.ZodType {
  const s = textCore(o);
  if (o.required) return s;
  return o.nullable ? s.nullable().optional() : s.optional();
}

/** A git ref name (lib/git-ref.ts: git's check-ref-format rules, never starting with '-'), trimmed; optional. */
export function gitRef(description?: string) {
  return textCore({ max: MAX_REF_BYTES, description })
    .check((ctx) => {
      const problem = gitRefProblem(ctx.value);
      if (problem)
        ctx.issues.push({ code: 'custom', input: ctx.value, message: `must be a valid git ref: it ${problem}` });
    })
    .optional();
}

/** A UUID in a body: required, trimmed and lower-cased. */
export function uuid() {
  return z
    .string({ error: (iss) => (iss.input == null ? 'is required' : 'must be a UUID string') })
    .refine((v) => v !== '', { error: 'is required', abort: true })
    .overwrite((v) => v.trim())
    .refine(isUuid, { error: 'must be a UUID string', abort: true })
    .overwrite((v) => v.toLowerCase())
    .meta({ format: 'uuid' });
}

/** An integer between `min` and `max`. */
export function int(o: { min: number; max: number; description?: string }) {
  const s = z
    .number({
      error: (iss) =>
        iss.input === undefined ? 'is required' : iss.input === null ? notNull('an integer') : 'must be an integer',
    })
    .int({ error: 'must be an integer', abort: true })
    .min(o.min, { error: `must be between ${o.min} and ${o.max}`, abort: true })
    .max(o.max, { error: `must be between ${o.min} and ${o.max}` });
  return o.description ? s.describe(o.description) : s;
}

/** true or false. */
export function bool(description?: string) {
  const s = z.boolean({
    error: (iss) => (iss.input === null ? notNull('true or false') : 'must be true or false'),
  });
  return (description ? s.describe(description) : s).optional();
}

/** The first key or string inside a JSON value that is not acceptable text (lib/validate.ts checkJsonText). */
function jsonTextIssue(v: unknown, path: string, depth = 0): { field: string; message: string } | undefined {
  if (depth > 64) return { field: path, message: 'is nested too deeply' };
  if (typeof v === 'string') {
    const problem = textProblem(v);
    return problem ? { field: path, message: problem } : undefined;
  }
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const issue = jsonTextIssue(v[i], `${path}[${i}]`, depth + 1);
      if (issue) return issue;
    }
  } else if (v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      const keyProblem = textProblem(k);
      if (keyProblem) return { field: `${path}.${k}`, message: keyProblem };
      const issue = jsonTextIssue(x, `${path}.${k}`, depth + 1);
      if (issue) return issue;
    }
  }
  return undefined;
}

/**
 * A JSON object of at most `maxBytes` serialised, every key and string in it valid text. `field` is the body field
 * it sits in (a bad key inside is named `field.key`); `check` runs a lib/ checker (lib/sync-config.ts) over it.
 */
export function jsonObject(o: {
  field: string;
  maxBytes?: number;
  check?: (v: Record<string, unknown>) => void;
  description?: string;
}) {
  const maxBytes = o.maxBytes ?? 64 * 1024;
  let s = z
    .record(z.string(), z.unknown(), {
      error: (iss) => (iss.input === null ? notNull('a JSON object') : 'must be a JSON object'),
    })
    .check((ctx) => {
      if (Buffer.byteLength(JSON.stringify(ctx.value)) > maxBytes) {
        ctx.issues.push({ code: 'custom', input: ctx.value, message: `must be at most ${maxBytes} bytes as JSON` });
        return;
      }
      const issue = jsonTextIssue(ctx.value, o.field);
      if (issue) ctx.issues.push({ code: 'custom', input: ctx.value, message: issue.message, params: issue });
    });
  if (o.check) s = s.check(checkedBy(o.check));
  return o.description ? s.describe(o.description) : s;
}

// ---------------------------------------------------------------------------------------------------------- query

type Query = Record<string, string | string[] | undefined>;

/** How a query or path parameter is documented. */
export interface ParamDoc {
  schema: Record<string, unknown>;
  description?: string;
  required?: boolean;
}

/** How each query or path parameter schema is documented (lib/api/openapi.ts reads it). */
export const paramDocs = new WeakMap<z.ZodType, ParamDoc>();

/**
 * A query or path parameter: its raw value (a string, an array when given twice) is read by a lib/validate.ts reader
 * (which throws naming the field); the document shows `doc`. The handler receives what `read` returns.
 */
export function param<T>(doc: ParamDoc, read: (query: Query, name: string) => T): z.ZodType<T, unknown> {
  const s = z.unknown().transform((raw, ctx) => {
    try {
      return read({ v: raw as string | string[] | undefined }, 'v');
    } catch (err) {
      if (!(err instanceof InvalidArgumentError)) throw err;
      ctx.issues.push({ code: 'custom', input: raw, message: err.reason });
      return z.NEVER;
    }
  });
  paramDocs.set(s, doc);
  return s;
}

const uuidJson = { type: 'string', format: 'uuid' };

export const query = {
  uuid: (description: string, o: { required?: boolean } = {}) =>
    param({ schema: uuidJson, description, required: o.required }, (q, n) => queryUuid(q, n, o)),
  string: (description: string, o: { maxLength?: number; required?: boolean } = {}) =>
    param(
      {
        schema: { type: 'string', ...(o.maxLength ? { maxLength: o.maxLength } : {}) },
        description,
        required: o.required,
      },
      (q, n) => queryString(q, n, o),
    ),
  int: (description: string, o: { default: number; min: number; max: number }) =>
    param({ schema: { type: 'integer', minimum: o.min, maximum: o.max, default: o.default }, description }, (q, n) =>
      queryInt(q, n, o),
    ),
  bool: (description: string, fallback: boolean) =>
    param({ schema: { type: 'boolean', default: fallback }, description }, (q, n) => queryBool(q, n, fallback)),
  enum: <T extends string>(description: string, values: readonly T[]) =>
    param({ schema: { enum: values }, description }, (q, n) => queryEnum(q, n, values)),
  /** A file's node id (`src_<source_id>:<file_path>`), checked as node detail checks its path. */
  nodeId: (description: string) =>
    param({ schema: { type: 'string' }, description, required: true }, (q, n) => {
      const v = queryString(q, n, { required: true, maxLength: 8192 })!;
      decodeNodeId(v, n);
      return v;
    }),
  /** A list's cursor: its key's id of the list's kind (lib/validate.ts decodeCursor). */
  cursor: (kind: 'uuid' | 'bigint' | 'token'): z.ZodType<CursorKey | undefined, unknown> =>
    param({ schema: { type: 'string' }, description: 'Opaque cursor from next_cursor of the previous page.' }, (q, n) =>
      decodeCursor(q, kind, n),
    ),
};

/** `limit` and `cursor` of every list (docs/decisions.md: newest first, keyset on created_at, id). */
export const page = (kind: 'uuid' | 'bigint' | 'token') => ({
  limit: query.int('Page size.', PAGE),
  cursor: query.cursor(kind),
});

export const path = {
  uuid: (description?: string) =>
    param({ schema: uuidJson, description, required: true }, (q, n) => requireUuid(q[n] as string | undefined, n)),
  /** A positive integer that fits PostgreSQL's bigint, kept as text. */
  bigint: (description?: string) =>
    param({ schema: { type: 'integer', minimum: 1, format: 'int64' }, description, required: true }, (q, n) => {
      const v = q[n] as string | undefined;
      if (v === undefined || v === '') throw new InvalidArgumentError(n, 'is required');
      if (!isBigintId(v)) throw new InvalidArgumentError(n, 'must be a positive integer');
      return v;
    }),
  string: (schema: Record<string, unknown>, description?: string) =>
    param({ schema, description, required: true }, (q, n) => String(q[n] ?? '')),
};
