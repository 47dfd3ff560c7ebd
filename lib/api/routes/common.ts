/**
 * The routes every component serves beside its own (lib/http.ts healthRoute, each app's /openapi.json), declared
 * for the documents: liveness and the document itself.
 */
import { route } from '../route.ts';
import { Health } from '../schemas.ts';

export const getHealth = route({
  method: 'GET',
  path: '/health',
  summary: 'Liveness',
  success: { status: 200, description: 'ok', schema: Health },
});

export const getOpenApi = route({
  method: 'GET',
  path: '/openapi.json',
  summary: 'This document',
  success: { status: 200, description: 'OpenAPI 3.1' },
});

export const COMMON_ROUTES = [getHealth, getOpenApi] as const;
