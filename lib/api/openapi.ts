/**
 * The OpenAPI 3.1 operations of declared routes (lib/api/route.ts), derived from their zod schemas: parameters from
 * the parameter schemas (lib/api/fields.ts says how each is documented), the request body and the responses by
 * z.toJSONSchema. A zod schema with `.meta({ id })` is a component: it is written once under `components.schemas`
 * and referred to by `$ref` wherever it appears.
 */
import { z } from 'zod';
import { paramDocs } from './fields.ts';
import type { ResponseDef, RouteDef } from './route.ts';

export type OpenApiPaths = Record<string, Record<string, unknown>>;

const COMPONENTS = '#/components/schemas/';

export const ref = (name: string) => ({ $ref: `${COMPONENTS}${name}` });
export const json = (schema: unknown) => ({ 'application/json': { schema } });

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = k === '$ref' && typeof v === 'string' ? v.replace(/^#\/\$defs\//, COMPONENTS) : rewriteRefs(v);
  }
  return out;
}

const isZod = (s: unknown): s is z.ZodType => s instanceof z.ZodType;

/**
 * The JSON Schema of `schema` for a document: named schemas it holds (and itself, when named) go into `defs` and
 * are referred to. `io`: 'input' for what a client sends, 'output' for what it receives.
 */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output', defs: Record<string, unknown>): unknown {
  const id = z.globalRegistry.get(schema)?.id;
  const js = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
    override: ({ jsonSchema }) => {
      // z.int()'s safe-integer bounds say nothing a reader needs.
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
    },
  }) as Record<string, unknown>;
  for (const [name, def] of Object.entries((js.$defs as Record<string, unknown> | undefined) ?? {})) {
    defs[name] ??= rewriteRefs(def);
  }
  delete js.$defs;
  delete js.$schema;
  delete js.id;
  const own = rewriteRefs(js);
  if (id === undefined) return own;
  defs[id] ??= own;
  return ref(id);
}

function response(r: ResponseDef, defs: Record<string, unknown>): Record<string, unknown> {
  if (r.schema === undefined) return { description: r.description };
  const schema = isZod(r.schema) ? jsonSchemaOf(r.schema, 'output', defs) : r.schema;
  return { description: r.description, content: { [r.contentType ?? 'application/json']: { schema } } };
}

function parameters(def: RouteDef): unknown[] {
  const out: unknown[] = [];
  for (const [where, shape] of [
    ['header', def.headers],
    ['path', def.params],
    ['query', def.query],
  ] as const) {
    for (const [name, schema] of Object.entries(shape ?? {})) {
      const doc = paramDocs.get(schema);
      if (!doc) throw new Error(`${def.method} ${def.path}: parameter ${name} is not a lib/api/fields.ts parameter`);
      out.push({
        name,
        in: where,
        required: where === 'path' || doc.required === true,
        schema: doc.schema,
        ...(doc.description ? { description: doc.description } : {}),
      });
    }
  }
  return out;
}

/** The operation object of one route. */
export function operationOf(def: RouteDef, defs: Record<string, unknown>): Record<string, unknown> {
  const params = parameters(def);
  const responses: Record<string, unknown> = {
    [def.success.status]: response(def.success, defs),
  };
  for (const [status, r] of Object.entries(def.responses ?? {})) responses[status] = response(r, defs);
  return {
    ...(def.tags ? { tags: def.tags } : {}),
    summary: def.summary,
    ...(def.description ? { description: def.description } : {}),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(def.body?.schema
      ? { requestBody: { required: def.body.required, content: json(jsonSchemaOf(def.body.schema, 'input', defs)) } }
      : {}),
    ...(def.security ? { security: def.security } : {}),
    responses,
  };
}

/**
 * The paths of `routes` merged over `paths` (hand-written operations of routes not declared yet), and the schemas
 * they name merged into `schemas`.
 */
export function pathsOf(
  routes: readonly RouteDef[],
  schemas: Record<string, unknown>,
  paths: OpenApiPaths = {},
): OpenApiPaths {
  const out: OpenApiPaths = structuredClone(paths);
  for (const def of routes) {
    const item = (out[def.path] ??= {});
    item[def.method.toLowerCase()] = operationOf(def, schemas);
  }
  return out;
}

/** The JSON Schemas of named zod schemas, for `components.schemas` (and the names they refer to). */
export function componentsOf(named: readonly z.ZodType[], io: 'input' | 'output' = 'output'): Record<string, unknown> {
  const defs: Record<string, unknown> = {};
  for (const s of named) jsonSchemaOf(s, io, defs);
  return defs;
}
