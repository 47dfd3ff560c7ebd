/**
 * The graph component's OpenAPI 3.1 document, served at GET /openapi.json (the gateway merges the components'
 * documents at /docs): every operation comes from its route declaration (lib/api/routes/), every schema from the
 * zod schemas those name. Decisions where the spec says "not shown" are written into the descriptions.
 */
import { sharedSchemas } from '../lib/openapi.ts';
import { pathsOf } from '../lib/api/openapi.ts';
import { COMMON_ROUTES } from '../lib/api/routes/common.ts';
import { GRAPH_ROUTES } from '../lib/api/routes/graph.ts';
import { NODE_ROUTES } from '../lib/api/routes/nodes.ts';
import { SEARCH_ROUTES } from '../lib/api/routes/search.ts';
import { listSchedules } from '../lib/api/routes/schedules.ts';
import { SOURCE_ROUTES } from '../lib/api/routes/sources.ts';
import { SYMBOL_ROUTES } from '../lib/api/routes/symbols.ts';
import { SYNC_READS } from '../lib/api/routes/syncs.ts';

const schemas: Record<string, unknown> = { ...sharedSchemas };
const paths = pathsOf(
  [
    ...COMMON_ROUTES,
    ...SOURCE_ROUTES,
    ...SYNC_READS,
    listSchedules,
    ...GRAPH_ROUTES,
    ...SEARCH_ROUTES,
    ...SYMBOL_ROUTES,
    ...NODE_ROUTES,
  ],
  schemas,
);

export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'Code-knowledge graph: graph component',
    version: '1.0.0',
    description:
      'Reads of the graph (merged snapshots, node detail, file text, stats, search, summaries), the source registry ' +
      'and reads of syncs, issues and schedules. Every error has the body `{ error: { code, message, field?, ' +
      'details? } }`. Lists are `{ items, next_cursor }`, newest first (issues: oldest first).',
  },
  paths,
  components: { schemas },
};
