/**
 * A route declared once: method, path (OpenAPI's `{param}` style, the only one), the zod schemas of its path and
 * query parameters and its body, and its responses. From the declaration come the request validation (`mount`), the
 * operation in the component's OpenAPI document (lib/api/openapi.ts) and the types of what it takes and answers
 * (lib/api/client.ts and every consumer).
 *
 * Validation keeps lib/validate.ts's rules: unknown body fields are refused first (naming the first), then the
 * fields in their declared order; the first problem is InvalidArgumentError (400 INVALID_ARGUMENT) naming its field.
 */
import type Koa from 'koa';
import type { Router } from '@koa/router';
import type { z } from 'zod';
import { InvalidArgumentError } from '../errors.ts';
import { checkText } from '../validate.ts';

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
export type Shape = Record<string, z.ZodType>;
export type JsonSchema = Record<string, unknown>;

export interface ResponseDef {
  description: string;
  /** A zod schema (documented from it; named ones by $ref), a hand-written JSON Schema, or no content. */
  schema?: z.ZodType | JsonSchema;
  /** The media type of the content (default application/json), e.g. text/event-stream. */
  contentType?: string;
}

export interface RouteDef<
  P extends Shape = Shape,
  Q extends Shape = Shape,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  R extends z.ZodType | undefined = z.ZodType | undefined,
> {
  method: Method;
  /** `/api/syncs/{sync_id}`: each `{name}` has a schema in `params`. */
  path: string;
  tags?: string[];
  summary: string;
  description?: string;
  params?: P;
  query?: Q;
  /** Header parameters, documented only (lib/api/fields.ts `param`): the route reads them itself. */
  headers?: Shape;
  /**
   * The JSON body: an object schema; `required: false` lets an absent body count as `{}`. `before` looks at the raw
   * object before anything else (a PATCH naming a field that cannot change).
   */
  body?: { schema: B; required: boolean; before?: (raw: Record<string, unknown>) => void };
  /** The answer on success: its status and the schema of its body (none for 204). */
  success: { status: number; description: string; schema?: R; contentType?: string };
  /** The other answers (errors, another success), by status, and `default` (any other status). */
  responses?: { [status: number]: ResponseDef; default?: ResponseDef };
  /** OpenAPI `security` (e.g. [] for webhooks, authenticated by signature). */
  security?: unknown[];
}

type Out<S> = S extends Shape ? { [K in keyof S]: z.output<S[K]> } : Record<string, never>;

/** The body schema of a route, if it takes one. */
export type BodyOf<D extends RouteDef> =
  NonNullable<D['body']> extends { schema: infer B extends z.ZodType } ? B : never;

export interface Input<D extends RouteDef> {
  params: Out<NonNullable<D['params']>>;
  query: Out<NonNullable<D['query']>>;
  body: [BodyOf<D>] extends [never] ? undefined : z.output<BodyOf<D>>;
}

/** What a route answers on success (the body type of its success schema). */
type SuccessSchema<D extends RouteDef> = NonNullable<D['success']['schema']>;
export type Reply<D extends RouteDef> = [SuccessSchema<D>] extends [never]
  ? void
  : SuccessSchema<D> extends z.ZodType
    ? z.input<SuccessSchema<D>>
    : void;

/** Declares a route (identity, typed). */
export const route = <
  P extends Shape,
  Q extends Shape,
  B extends z.ZodType | undefined,
  R extends z.ZodType | undefined,
>(
  def: RouteDef<P, Q, B, R>,
): RouteDef<P, Q, B, R> => def;

/** The field an issue names: a check's own `params.field`, else its path (`a.b`, `a[0]`), else `body`. */
function fieldOf(issue: z.core.$ZodIssue, prefix: string): string {
  const own = (issue as { params?: { field?: unknown } }).params?.field;
  if (typeof own === 'string' && own !== '') return own;
  let out = prefix;
  for (const seg of issue.path) {
    out = typeof seg === 'number' ? `${out}[${seg}]` : out === '' ? String(seg) : `${out}.${String(seg)}`;
  }
  return out === '' ? 'body' : out;
}

function firstProblem(result: z.ZodSafeParseResult<unknown>, prefix: string): never | void {
  if (result.success) return;
  const issue = result.error.issues[0]!;
  throw new InvalidArgumentError(fieldOf(issue, prefix), issue.message);
}

/** Reads each parameter of `shape` from `raw` in declared order; the first problem throws naming it. */
export function readParams<S extends Shape>(shape: S | undefined, raw: Record<string, unknown>): Out<S> {
  const out: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(shape ?? {})) {
    const r = schema.safeParse(raw[name]);
    firstProblem(r, name);
    out[name] = r.data;
  }
  return out as Out<S>;
}

/** The keys an object schema declares (for the unknown-field check). */
function declaredKeys(schema: z.ZodType): string[] {
  const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape;
  return shape ? Object.keys(shape) : [];
}

/** Reads a JSON body against `def` (see the rules above). */
export function readBody<B extends z.ZodType>(
  raw: unknown,
  def: { schema: B; required: boolean; before?: (raw: Record<string, unknown>) => void },
): z.output<B> {
  let body = raw;
  if (!def.required && (body === undefined || body === null)) body = {};
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new InvalidArgumentError('body', 'must be a JSON object');
  }
  def.before?.(body as Record<string, unknown>);
  const allowed = declaredKeys(def.schema);
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) {
      checkText('body', key);
      throw new InvalidArgumentError(key, `is not a field of this request (allowed: ${allowed.join(', ')})`);
    }
  }
  const r = def.schema.safeParse(body);
  firstProblem(r, '');
  return r.data as z.output<B>;
}

/** Validates a request against `def` (path, query, then body). */
export function readInput<D extends RouteDef>(def: D, ctx: Koa.Context): Input<D> {
  const params = readParams(def.params, (ctx as unknown as { params?: Record<string, unknown> }).params ?? {});
  const query = readParams(def.query, ctx.query);
  const body = def.body?.schema
    ? readBody(
        (ctx.request as unknown as { body?: unknown }).body,
        def.body as { schema: z.ZodType; required: boolean },
      )
    : undefined;
  return { params, query, body } as Input<D>;
}

/** Koa's path for an OpenAPI template: `{sync_id}` → `:sync_id`. */
export const koaPath = (template: string) => template.replace(/\{(\w+)\}/g, ':$1');

/**
 * Registers `def` on `router`: the handler gets the validated input and returns the success body (sent with the
 * success status), or nothing for a body-less answer.
 */
export function mount<D extends RouteDef>(
  router: Router,
  def: D,
  handler: (input: Input<D>, ctx: Koa.Context) => Promise<Reply<D>>,
): void {
  const serve = async (ctx: Koa.Context) => {
    const input = readInput(def, ctx);
    ctx.status = def.success.status; // the handler may answer another success status (an upsert's 200)
    const result = await handler(input, ctx);
    if (result !== undefined) ctx.body = result;
  };
  const path = koaPath(def.path);
  if (def.method === 'GET') router.get(path, serve);
  else if (def.method === 'POST') router.post(path, serve);
  else if (def.method === 'PATCH') router.patch(path, serve);
  else router.delete(path, serve);
}
