/**
 * The ingestion component's Koa app: request id and metrics, error middleware, /health, /ready (database and
 * Temporal) and /metrics, /openapi.json, then the sync, schedule and /ingest routes.
 * Everything it touches comes in through `deps`.
 */
import Koa from 'koa';
import { Router } from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import { InvalidArgumentError } from '../../lib/errors.ts';
import { errorMiddleware, healthRoute } from '../../lib/http.ts';
import { observeRequests } from '../../lib/observe.ts';
import { opsRoutes } from '../../lib/ops-routes.ts';
import { createReadiness, databaseCheck, temporalCheck } from '../../lib/readiness.ts';
import { requestDeadlineMs, type IngestionDeps } from './deps.ts';
import { ingestRoutes } from './ingest/routes.ts';
import { openApiDocument } from './openapi.ts';
import { scheduleRoutes } from './schedules/routes.ts';
import { syncRoutes } from './syncs/routes.ts';
import { DEFAULT_SWEEPER, startSweeper } from './webhooks/followups.ts';
import { webhookRoutes } from './webhooks/routes.ts';

export function createApp(deps: IngestionDeps): Koa {
  const app = new Koa();
  app.use(observeRequests());
  app.use(errorMiddleware(deps.log));
  app.use(healthRoute(deps.liveness ? [deps.liveness] : []));
  app.use(
    opsRoutes(
      createReadiness({
        database: databaseCheck(deps.pool),
        temporal: temporalCheck(deps.temporal.workflowService),
      }),
    ),
  );
  // Every Temporal call made while serving a request ends by one deadline (the SDK sets none by default).
  const deadlineMs = requestDeadlineMs(deps.settings);
  app.use((_ctx, next) => deps.temporal.connection.withDeadline(Date.now() + deadlineMs, next));
  // Webhook deliveries are signed over their exact bytes: their route reads the raw body, before the JSON parser.
  const hooks = new Router();
  webhookRoutes(
    hooks,
    deps,
    deps.webhookSweeper ?? startSweeper(deps, { ...(deps.settings.webhooks ?? DEFAULT_SWEEPER), intervalMs: 0 }),
  );
  app.use(hooks.routes());
  app.use(
    bodyParser({
      enableTypes: ['json'],
      jsonLimit: '1mb',
      onError: (err) => {
        const tooLarge = (err as { status?: unknown }).status === 413;
        throw new InvalidArgumentError('body', tooLarge ? 'is larger than 1 MB' : 'is not valid JSON', { cause: err });
      },
    }),
  );
  const router = new Router();
  const document = openApiDocument();
  router.get('/openapi.json', (ctx) => {
    ctx.body = document;
  });
  syncRoutes(router, deps);
  scheduleRoutes(router, deps);
  ingestRoutes(router, deps);
  app.use(router.routes());
  return app;
}
