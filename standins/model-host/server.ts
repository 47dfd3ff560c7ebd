/**
 * The model-host stand-in: OpenAI-compatible embeddings (default port 8101) and chat completions (default port
 * 8102), with a bearer check, injected latency and failures, and request counters that tests read. A Koa app per
 * listener (as the service's components), OpenAI-style error bodies.
 *
 * Routes, per listener:
 *   embeddings listener  POST /v1/embeddings
 *   chat listener        POST /v1/chat/completions
 *   both                 GET /health, GET /v1/models,
 *                        GET /_standin/stats, POST /_standin/reset, PUT /_standin/faults  (test hooks)
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import Router from '@koa/router';
import Koa from 'koa';
import { createLogger, type Logger } from '../../lib/log.ts';
import { defaultModelHostConfig, type Faults, type ModelHostConfig } from './config.ts';
import { chatCompletions, embeddings } from './api.ts';
import { HttpError, isRecord, readJson, seededRandom } from './http.ts';
import { startMiniLM, type RealEmbedder } from './real-model.ts';

export type Endpoint = 'embeddings' | 'chat';

export type Outcome =
  'ok' | 'unauthorized' | 'bad_request' | 'context_length' | 'injected_failure' | 'injected_reset' | 'not_found';

export interface RequestLogEntry {
  seq: number;
  at: string;
  endpoint: Endpoint;
  status: number;
  outcome: Outcome;
  durationMs: number;
  model?: string;
  /** Embeddings: number of inputs; the modes chosen by their prefixes; how many had no prefix. */
  inputs?: number;
  queryInputs?: number;
  unprefixedInputs?: number;
  /** Chat: prompt size and the sampling fields the caller sent. */
  promptChars?: number;
  promptTokens?: number;
  maxTokens?: number;
  temperature?: number;
  enableThinking?: boolean;
  /** Chat: the roles of the messages, in order. */
  roles?: string[];
}

export interface EndpointStats {
  requests: number;
  ok: number;
  unauthorized: number;
  badRequest: number;
  contextLength: number;
  injectedFailures: number;
}

export interface ModelHostStats {
  embeddings: EndpointStats & { inputs: number; queryInputs: number; documentInputs: number; unprefixedInputs: number };
  chat: EndpointStats;
  /** The most recent requests, oldest first (at most LOG_LIMIT). */
  log: RequestLogEntry[];
}

export interface ModelHost {
  /** Full endpoint URLs, as EMBEDDING_URL and DENSE_LLM_URL expect them. */
  embeddingUrl: string;
  chatUrl: string;
  /** `http://host:port` of each listener. */
  embeddingOrigin: string;
  chatOrigin: string;
  stats(): ModelHostStats;
  resetStats(): void;
  /** Changes injected faults at run time, for one endpoint or (without `endpoint`) both. */
  setFaults(faults: Partial<Faults>, endpoint?: Endpoint): void;
  close(): Promise<void>;
}

const LOG_LIMIT = 500;

function emptyEndpointStats(): EndpointStats {
  return { requests: 0, ok: 0, unauthorized: 0, badRequest: 0, contextLength: 0, injectedFailures: 0 };
}

function emptyStats(): ModelHostStats {
  return {
    embeddings: { ...emptyEndpointStats(), inputs: 0, queryInputs: 0, documentInputs: 0, unprefixedInputs: 0 },
    chat: emptyEndpointStats(),
    log: [],
  };
}

function bearerMatches(header: string | undefined, key: string): boolean {
  const m = /^Bearer\s+(.+)$/i.exec(header ?? '');
  if (!m?.[1]) return false;
  const given = Buffer.from(m[1].trim());
  const want = Buffer.from(key);
  return given.length === want.length && timingSafeEqual(given, want);
}

function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

function originOf(addr: AddressInfo): string {
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return `http://${host}:${addr.port}`;
}

/** The stand-in's mutable state: faults per endpoint, counters and the request log. */
interface HostState {
  config: ModelHostConfig;
  faults: Record<Endpoint, Faults>;
  stats: ModelHostStats;
  random: () => number;
  logger: Logger;
  record(entry: Omit<RequestLogEntry, 'seq' | 'at'>): void;
  setFaults(patch: Partial<Faults>, endpoint?: Endpoint): void;
  authorised(ctx: Koa.Context): boolean;
}

function createState(config: ModelHostConfig, logger: Logger): HostState {
  let seq = 0;
  const state: HostState = {
    config,
    faults: { embeddings: { ...config.faults }, chat: { ...config.faults } },
    stats: emptyStats(),
    random: seededRandom(config.failureSeed),
    logger,
    record(entry) {
      const s = state.stats[entry.endpoint];
      s.requests++;
      if (entry.outcome === 'ok') s.ok++;
      else if (entry.outcome === 'unauthorized') s.unauthorized++;
      else if (entry.outcome === 'bad_request') s.badRequest++;
      else if (entry.outcome === 'context_length') s.contextLength++;
      else if (entry.outcome === 'injected_failure' || entry.outcome === 'injected_reset') s.injectedFailures++;
      state.stats.log.push({ seq: ++seq, at: new Date().toISOString(), ...entry });
      if (state.stats.log.length > LOG_LIMIT) state.stats.log.splice(0, state.stats.log.length - LOG_LIMIT);
      logger.debug('model_request', { ...entry });
    },
    setFaults(patch, endpoint) {
      for (const e of endpoint ? [endpoint] : (['embeddings', 'chat'] as const)) {
        state.faults[e] = { ...state.faults[e], ...patch };
      }
      logger.info('model_host_faults_changed', { faults: state.faults });
    },
    authorised: (ctx) => config.apiKey === '' || bearerMatches(ctx.get('authorization'), config.apiKey),
  };
  return state;
}

function send(ctx: Koa.Context, status: number, body: unknown): void {
  ctx.status = status;
  ctx.body = body;
}

/** A model request's faults (bearer, latency, injected failure): true when the request was answered by them. */
async function injectedFaults(state: HostState, endpoint: Endpoint, ctx: Koa.Context, elapsed: () => number) {
  if (!state.authorised(ctx)) {
    state.record({ endpoint, status: 401, outcome: 'unauthorized', durationMs: elapsed() });
    const error = { message: 'Incorrect API key provided.', type: 'invalid_request_error', param: null };
    send(ctx, 401, { error: { ...error, code: 'invalid_api_key' } });
    return true;
  }
  const f = state.faults[endpoint];
  if (f.latencyMs > 0) await sleep(f.latencyMs);
  if (f.failureRate > 0 && state.random() < f.failureRate) {
    if (f.failureMode === 'reset') {
      state.record({ endpoint, status: 0, outcome: 'injected_reset', durationMs: elapsed() });
      ctx.respond = false;
      ctx.req.socket.destroy();
      return true;
    }
    state.record({ endpoint, status: 503, outcome: 'injected_failure', durationMs: elapsed() });
    send(ctx, 503, {
      error: {
        message: 'The stand-in model host injected a failure (MODEL_HOST_FAILURE_RATE).',
        type: 'server_error',
        param: null,
        code: 'service_unavailable',
      },
    });
    return true;
  }
  return false;
}

/** POST /v1/embeddings or /v1/chat/completions: faults first, then the answer, each request counted and logged. */
function modelRoute(state: HostState, endpoint: Endpoint, real: RealEmbedder | undefined): Koa.Middleware {
  const { config } = state;
  return async (ctx) => {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    if (await injectedFaults(state, endpoint, ctx, elapsed)) return;
    try {
      const body = await readJson(ctx.req);
      if (endpoint === 'embeddings') {
        const out = await embeddings(
          body,
          config.dim,
          config.embeddingContextTokens,
          real && ((t, d) => real.embed(t, d)),
        );
        const queries = out.modes.filter((m) => m === 'query').length;
        const stats = state.stats; // replaced whole by a reset
        stats.embeddings.inputs += out.modes.length;
        stats.embeddings.queryInputs += queries;
        stats.embeddings.documentInputs += out.modes.length - queries;
        stats.embeddings.unprefixedInputs += out.unprefixed;
        state.record({
          endpoint,
          status: 200,
          outcome: 'ok',
          durationMs: elapsed(),
          model: out.model,
          inputs: out.modes.length,
          queryInputs: queries,
          unprefixedInputs: out.unprefixed,
        });
        send(ctx, 200, out.body);
      } else {
        const out = chatCompletions(body, config.chatContextTokens);
        state.record({
          endpoint,
          status: 200,
          outcome: 'ok',
          durationMs: elapsed(),
          model: out.model,
          promptChars: out.promptChars,
          promptTokens: out.promptTokens,
          ...(out.maxTokens === undefined ? {} : { maxTokens: out.maxTokens }),
          ...(out.temperature === undefined ? {} : { temperature: out.temperature }),
          enableThinking: out.enableThinking,
          roles: out.roles,
        });
        send(ctx, 200, out.body);
      }
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      const outcome: Outcome = err.body.error.code === 'context_length_exceeded' ? 'context_length' : 'bad_request';
      state.record({ endpoint, status: err.status, outcome, durationMs: elapsed() });
      send(ctx, err.status, err.body);
    }
  };
}

/** The test hooks under /_standin/: stats, reset, faults (behind the same bearer as the model routes). */
function adminRoutes(router: Router, state: HostState): void {
  router.use('/_standin', async (ctx, next) => {
    if (!state.authorised(ctx)) {
      send(ctx, 401, { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error' } });
      return;
    }
    await next();
  });
  router.get('/_standin/stats', (ctx) => send(ctx, 200, state.stats));
  router.post('/_standin/reset', (ctx) => {
    state.stats = emptyStats();
    send(ctx, 200, { reset: true });
  });
  router.put('/_standin/faults', async (ctx) => {
    const body = await readJson(ctx.req);
    if (!isRecord(body)) throw new HttpError(400, 'invalid_request_error', null, 'body must be an object');
    const endpoint = body.endpoint;
    if (endpoint !== undefined && endpoint !== 'embeddings' && endpoint !== 'chat') {
      throw new HttpError(400, 'invalid_request_error', null, 'endpoint must be "embeddings" or "chat"');
    }
    state.setFaults(parseFaults(body), endpoint);
    send(ctx, 200, state.faults);
  });
}

const MODEL_PATHS: Record<Endpoint, string> = { embeddings: '/v1/embeddings', chat: '/v1/chat/completions' };

/** One listener's app: health, models, the test hooks and the model routes of `endpoints`; OpenAI-style errors. */
function modelHostApp(endpoints: readonly Endpoint[], state: HostState, real: RealEmbedder | undefined): Koa {
  const app = new Koa();
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      if (err instanceof HttpError) return send(ctx, err.status, err.body);
      state.logger.error('model_host_request_failed', { err, path: ctx.path });
      send(ctx, 500, { error: { message: 'internal error', type: 'server_error', param: null, code: null } });
    }
  });
  const router = new Router();
  router.get('/health', (ctx) =>
    send(ctx, 200, { status: 'ok', endpoints, dim: state.config.dim, embedding_model: state.config.embeddingModel }),
  );
  router.get('/v1/models', (ctx) =>
    send(ctx, 200, {
      object: 'list',
      data: endpoints.map((e) => ({ id: e === 'chat' ? 'dense' : 'embeddings', object: 'model', owned_by: 'standin' })),
    }),
  );
  adminRoutes(router, state);
  for (const endpoint of endpoints) {
    router.post(MODEL_PATHS[endpoint], modelRoute(state, endpoint, real));
    router.all(MODEL_PATHS[endpoint], (ctx) => {
      ctx.set('allow', 'POST');
      send(ctx, 405, {
        error: { message: 'method not allowed', type: 'invalid_request_error', param: null, code: null },
      });
    });
  }
  app.use(router.routes());
  app.use((ctx) => {
    const error = { message: `no route ${ctx.method} ${ctx.path}`, type: 'not_found_error', param: null, code: null };
    send(ctx, 404, { error });
  });
  return app;
}

/** Listens with one server for both endpoints when their ports are the same, else one per endpoint. */
async function listenAll(
  config: ModelHostConfig,
  app: (endpoints: readonly Endpoint[]) => Koa,
): Promise<{ servers: Server[]; embeddingOrigin: string; chatOrigin: string }> {
  const servers: Server[] = [];
  const serve = (endpoints: readonly Endpoint[]) => {
    const handle = app(endpoints).callback();
    const server = createServer((req, res) => void handle(req, res));
    servers.push(server);
    return server;
  };
  try {
    if (config.embeddingPort !== 0 && config.embeddingPort === config.chatPort) {
      const server = serve(['embeddings', 'chat']);
      const origin = originOf(await listen(server, config.host, config.embeddingPort));
      return { servers, embeddingOrigin: origin, chatOrigin: origin };
    }
    const e = serve(['embeddings']);
    const embeddingOrigin = originOf(await listen(e, config.host, config.embeddingPort));
    const c = serve(['chat']);
    const chatOrigin = originOf(await listen(c, config.host, config.chatPort));
    return { servers, embeddingOrigin, chatOrigin };
  } catch (err) {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    throw err;
  }
}

export async function startModelHost(
  overrides: Partial<ModelHostConfig> = {},
  logger: Logger = createLogger('model-host'),
): Promise<ModelHost> {
  const config: ModelHostConfig = { ...defaultModelHostConfig, ...overrides };
  const state = createState(config, logger);
  // A real embedding model when configured (MODEL_HOST_EMBEDDING_MODEL=minilm), else the lexical stand-in.
  const real = config.embeddingModel === 'minilm' ? await startMiniLM(config.python || 'python3') : undefined;
  const { servers, embeddingOrigin, chatOrigin } = await listenAll(config, (e) => modelHostApp(e, state, real));
  return {
    embeddingUrl: `${embeddingOrigin}/v1/embeddings`,
    chatUrl: `${chatOrigin}/v1/chat/completions`,
    embeddingOrigin,
    chatOrigin,
    stats: () => structuredClone(state.stats),
    resetStats: () => {
      state.stats = emptyStats();
    },
    setFaults: (patch, endpoint) => state.setFaults(patch, endpoint),
    close: async () => {
      await real?.close();
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((resolve, reject) => {
              s.close((err) => (err ? reject(err) : resolve()));
              s.closeAllConnections();
            }),
        ),
      );
    },
  };
}

/** Reads a partial Faults object from a JSON body, refusing out-of-range values. */
function parseFaults(body: Record<string, unknown>): Partial<Faults> {
  const out: Partial<Faults> = {};
  const { latencyMs, failureRate, failureMode } = body;
  if (latencyMs !== undefined) {
    if (typeof latencyMs !== 'number' || !Number.isInteger(latencyMs) || latencyMs < 0) {
      throw new HttpError(400, 'invalid_request_error', null, 'latencyMs must be a non-negative integer');
    }
    out.latencyMs = latencyMs;
  }
  if (failureRate !== undefined) {
    if (typeof failureRate !== 'number' || failureRate < 0 || failureRate > 1) {
      throw new HttpError(400, 'invalid_request_error', null, 'failureRate must be a number in [0, 1]');
    }
    out.failureRate = failureRate;
  }
  if (failureMode !== undefined) {
    if (failureMode !== 'status' && failureMode !== 'reset') {
      throw new HttpError(400, 'invalid_request_error', null, 'failureMode must be "status" or "reset"');
    }
    out.failureMode = failureMode;
  }
  return out;
}
