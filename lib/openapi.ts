/**
 * What the components' OpenAPI 3.1 documents share beside their declared routes (lib/api/routes/): the shared
 * component schemas (`Error`, `Sync`, `Schedule`, `Health`), derived from their zod schemas in lib/api/schemas.ts so
 * the gateway's merged document finds one definition of each name and never has to rename one, and the error answer
 * of the gateway's own hand-written part (gateway/docs/gateway-openapi.ts).
 */
import { componentsOf, json, ref } from './api/openapi.ts';
import { SHARED } from './api/schemas.ts';

export type Schema = Record<string, unknown>;

/** A response with the error body. */
export const errorResponse = (description: string) => ({ description, content: json(ref('Error')) });

/** The shared component schemas (lib/api/schemas.ts, derived from their zod schemas), for `components.schemas`. */
export const sharedSchemas = componentsOf(SHARED) as {
  Error: Schema;
  Health: Schema;
  Sync: Schema;
  Schedule: Schema;
};
