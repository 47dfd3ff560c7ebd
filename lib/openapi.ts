/**
 * The small builders of the hand-written parts of the components' OpenAPI 3.1 documents (operations not yet
 * declared as routes, lib/api/route.ts), and the shared component schemas (`Error`, `Sync`, `Schedule`, `Health`),
 * derived from their zod schemas in lib/api/schemas.ts, so the gateway's merged document finds one definition of
 * each name and never has to rename one.
 */
import { componentsOf } from './api/openapi.ts';
import { SHARED } from './api/schemas.ts';
import { PAGE } from './http.ts';

export type Schema = Record<string, unknown>;

export const uuid = { type: 'string', format: 'uuid' } as const;
export const timestamp = { type: 'string', format: 'date-time' } as const;
export const nullableTimestamp = { type: ['string', 'null'], format: 'date-time' } as const;

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const json = (schema: unknown) => ({ 'application/json': { schema } });
/** A response with the error body. */
export const errorResponse = (description: string) => ({ description, content: json(ref('Error')) });

/** A path parameter; `schema` defaults to a UUID. */
export const pathParam = (name: string, schema: unknown = uuid) => ({ name, in: 'path', required: true, schema });
/** A query parameter. */
export const queryParam = (name: string, schema: unknown, description: string, required = false) => ({
  name,
  in: 'query',
  required,
  schema,
  description,
});

/** `limit` and `cursor` of every list (docs/decisions.md: newest first, keyset on created_at, id). */
export const pageParameters = [
  queryParam('limit', { type: 'integer', minimum: PAGE.min, maximum: PAGE.max, default: PAGE.default }, 'Page size.'),
  queryParam('cursor', { type: 'string' }, 'Opaque cursor from next_cursor of the previous page.'),
];
/** A page of a list: `{ items, next_cursor }`, next_cursor null on the last page. */
export const pageOf = (item: string) => ({
  type: 'object',
  required: ['items', 'next_cursor'],
  properties: { items: { type: 'array', items: ref(item) }, next_cursor: { type: ['string', 'null'] } },
});

/** The shared component schemas (lib/api/schemas.ts, derived from their zod schemas), for `components.schemas`. */
export const sharedSchemas = componentsOf(SHARED) as {
  Error: Schema;
  Health: Schema;
  Sync: Schema;
  Schedule: Schema;
};
