/**
 * The OpenAPI 3.1 document of the ingestion component, served at GET /openapi.json (the gateway merges the
 * components' documents at /docs). It records every choice made where the spec says "not shown".
 */
import { pathsOf } from '../../lib/api/openapi.ts';
import { SCHEDULE_COMMANDS } from '../../lib/api/routes/schedules.ts';
import { SYNC_COMMANDS } from '../../lib/api/routes/syncs.ts';
import { INGEST_ROUTES } from '../../lib/api/routes/ingest.ts';
import { sharedSchemas } from '../../lib/openapi.ts';
import { COMMON_ROUTES } from '../../lib/api/routes/common.ts';

export function openApiDocument(): Record<string, unknown> {
  const schemas: Record<string, unknown> = { ...sharedSchemas };
  const paths = pathsOf([...COMMON_ROUTES, ...SYNC_COMMANDS, ...SCHEDULE_COMMANDS, ...INGEST_ROUTES], schemas);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Code-knowledge graph: ingestion component',
      version: '1.0.0',
      description:
        'Sync and schedule writes (port 8081), turned into Temporal workflow and schedule calls. The workflow id of ' +
        'a sync is its source id (one active run per source); Temporal schedules are named after the repository, ' +
        '`sched-<owner>-<name>-<schedule id>`. ' +
        'State changes are reported as event rows on the SSE stream (`sync_lifecycle`, `schedule_changed`, ' +
        '`schedule_run_skipped`, `source_changed`).',
    },
    servers: [{ url: '/' }],
    tags: [{ name: 'syncs' }, { name: 'schedules' }, { name: 'ingest', description: 'Direct operator access.' }],
    paths,
    components: { schemas },
  };
}
