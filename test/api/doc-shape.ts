/**
 * What an OpenAPI document says about each operation, in a form two documents can be compared by: the parameters
 * (`in:name`), the request body and each response as the set of property paths their schemas describe ($refs
 * resolved, so a schema moved inline or into components reads the same), and each component schema's paths.
 * test/fixtures/openapi/baseline.json holds this shape of the hand-written documents the route schemas replaced
 * (regenerate: never; a document may only grow past it).
 */
type Json = Record<string, unknown>;
export interface Doc {
  paths: Record<string, Record<string, Json>>;
  components?: { schemas?: Record<string, Json> };
}

export const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

export interface OperationShape {
  parameters: string[];
  requestBody: string[] | null;
  responses: Record<string, string[] | null>;
}
export interface DocShape {
  operations: Record<string, OperationShape>;
  schemas: Record<string, string[]>;
}

function resolve(doc: Doc, s: unknown): Json | undefined {
  let cur = s as Json | undefined;
  for (let i = 0; i < 10 && cur && typeof cur.$ref === 'string'; i++) {
    cur = doc.components?.schemas?.[cur.$ref.split('/').pop()!];
  }
  return cur;
}

/** Every property path a schema describes: `a`, `a.b`, `items[].c`, down to `depth` levels. */
export function propertyPaths(doc: Doc, schema: unknown, prefix = '', depth = 0, out = new Set<string>()): string[] {
  const s = resolve(doc, schema);
  if (!s || depth > 6) return [...out];
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    for (const sub of (s[key] as unknown[] | undefined) ?? []) propertyPaths(doc, sub, prefix, depth + 1, out);
  }
  if (s.items) propertyPaths(doc, s.items, `${prefix}[]`, depth + 1, out);
  for (const [name, sub] of Object.entries((s.properties as Record<string, unknown> | undefined) ?? {})) {
    const path = prefix === '' ? name : `${prefix}.${name}`;
    out.add(path);
    propertyPaths(doc, sub, path, depth + 1, out);
  }
  return [...out].sort();
}

const contentSchema = (x: unknown) => ((x as Json | undefined)?.content as Json | undefined)?.['application/json'];

export function docShape(doc: Doc): DocShape {
  const operations: Record<string, OperationShape> = {};
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const params = [
        ...((item.parameters as Json[] | undefined) ?? []),
        ...((op.parameters as Json[] | undefined) ?? []),
      ];
      const body = contentSchema(op.requestBody) as Json | undefined;
      const responses: Record<string, string[] | null> = {};
      for (const [status, res] of Object.entries((op.responses as Json | undefined) ?? {})) {
        const c = contentSchema(res) as Json | undefined;
        responses[status] = c ? propertyPaths(doc, c.schema) : null;
      }
      operations[`${method.toUpperCase()} ${template}`] = {
        parameters: params.map((p) => `${String(p.in)}:${String(p.name)}`).sort(),
        requestBody: body ? propertyPaths(doc, body.schema) : null,
        responses,
      };
    }
  }
  const schemas: Record<string, string[]> = {};
  for (const [name, s] of Object.entries(doc.components?.schemas ?? {})) schemas[name] = propertyPaths(doc, s);
  return { operations, schemas };
}

/** What `baseline` says that `shape` does not (empty: `shape` is at least as complete). */
export function missingFrom(shape: DocShape, baseline: DocShape): string[] {
  const out: string[] = [];
  for (const [key, want] of Object.entries(baseline.operations)) {
    const have = shape.operations[key];
    if (!have) {
      out.push(`${key}: not documented`);
      continue;
    }
    for (const p of want.parameters) if (!have.parameters.includes(p)) out.push(`${key}: parameter ${p}`);
    if (want.requestBody && !have.requestBody) out.push(`${key}: request body`);
    for (const p of want.requestBody ?? []) if (!have.requestBody?.includes(p)) out.push(`${key}: body field ${p}`);
    for (const [status, paths] of Object.entries(want.responses)) {
      if (!(status in have.responses)) out.push(`${key}: response ${status}`);
      else if (paths && !have.responses[status]) out.push(`${key}: response ${status} schema`);
      else for (const p of paths ?? []) if (!have.responses[status]!.includes(p)) out.push(`${key}: ${status} ${p}`);
    }
  }
  for (const [name, want] of Object.entries(baseline.schemas)) {
    const have = shape.schemas[name];
    if (!have) out.push(`schema ${name}: missing`);
    else for (const p of want) if (!have.includes(p)) out.push(`schema ${name}: ${p}`);
  }
  return out;
}
