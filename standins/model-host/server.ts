/**
 * The model-host stand-in: OpenAI-compatible embeddings (default port 8101) and chat completions (default port
 * 8102), with a bearer check, injected latency and failures, and request counters that tests read.
 *
 * Routes, per listener:
 *   embeddings listener  POST /v1/embeddings
 *   chat listener        POST /v1/chat/completions
 *   both                 GET /health, GET /v1/models,
 *                        GET /_standin/stats, POST /_standin/reset, PUT /_standin/faults  (test hooks)
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger, type Logger } from '../../lib/log.ts';
import { defaultModelHostConfig, type Faults, type ModelHostConfig } from './config.ts';
import { chatCompletions, embeddings } from './api.ts';
import { HttpError, isRecord, readJson, seededRandom, sendJson } from './http.ts';
import { startMiniLM } from './real-model.ts';

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

export async function startModelHost(
  overrides: Partial<ModelHostConfig> = {},
  logger: Logger = createLogger('model-host'),
): Promise<ModelHost> {
  const config: ModelHostConfig = { ...defaultModelHostConfig, ...overrides };
  const faults: Record<Endpoint, Faults> = { embeddings: { ...config.faults }, chat: { ...config.faults } };
  const random = seededRandom(config.failureSeed);
  // A real embedding model when configured (MODEL_HOST_EMBEDDING_MODEL=minilm), else the lexical stand-in.
  const real = config.embeddingModel === 'minilm' ? await startMiniLM(config.python || 'python3') : undefined;
  let stats = emptyStats();
  let seq = 0;

  const record = (entry: Omit<RequestLogEntry, 'seq' | 'at'>) => {
    const s = stats[entry.endpoint];
    s.requests++;
    if (entry.outcome === 'ok') s.ok++;
    else if (entry.outcome === 'unauthorized') s.unauthorized++;
    else if (entry.outcome === 'bad_request') s.badRequest++;
    else if (entry.outcome === 'context_length') s.contextLength++;
    else if (entry.outcome === 'injected_failure' || entry.outcome === 'injected_reset') s.injectedFailures++;
    stats.log.push({ seq: ++seq, at: new Date().toISOString(), ...entry });
    if (stats.log.length > LOG_LIMIT) stats.log.splice(0, stats.log.length - LOG_LIMIT);
    logger.debug('model_request', { ...entry });
  };

  const authorised = (req: IncomingMessage) =>
    config.apiKey === '' || bearerMatches(req.headers.authorization, config.apiKey);

  async function model(endpoint: Endpoint, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    if (!authorised(req)) {
      record({ endpoint, status: 401, outcome: 'unauthorized', durationMs: elapsed() });
      sendJson(res, 401, {
        error: {
          message: 'Incorrect API key provided.',
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        },
      });
      return;
    }
    const f = faults[endpoint];
    if (f.latencyMs > 0) await sleep(f.latencyMs);
    if (f.failureRate > 0 && random() < f.failureRate) {
      if (f.failureMode === 'reset') {
        record({ endpoint, status: 0, outcome: 'injected_reset', durationMs: elapsed() });
        req.socket.destroy();
        return;
      }
      record({ endpoint, status: 503, outcome: 'injected_failure', durationMs: elapsed() });
      sendJson(res, 503, {
        error: {
          message: 'The stand-in model host injected a failure (MODEL_HOST_FAILURE_RATE).',
          type: 'server_error',
          param: null,
          code: 'service_unavailable',
        },
      });
      return;
    }
    try {
      const body = await readJson(req);
      if (endpoint === 'embeddings') {
        const out = await embeddings(
          body,
          config.dim,
          config.embeddingContextTokens,
          real && ((t, d) => real.embed(t, d)),
        );
        const queries = out.modes.filter((m) => m === 'query').length;
        stats.embeddings.inputs += out.modes.length;
        stats.embeddings.queryInputs += queries;
        stats.embeddings.documentInputs += out.modes.length - queries;
        stats.embeddings.unprefixedInputs += out.unprefixed;
        record({
          endpoint,
          status: 200,
          outcome: 'ok',
          durationMs: elapsed(),
          model: out.model,
          inputs: out.modes.length,
          queryInputs: queries,
          unprefixedInputs: out.unprefixed,
        });
        sendJson(res, 200, out.body);
      } else {
        const out = chatCompletions(body, config.chatContextTokens);
        record({
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
        sendJson(res, 200, out.body);
      }
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      const outcome: Outcome = err.body.error.code === 'context_length_exceeded' ? 'context_length' : 'bad_request';
      record({ endpoint, status: err.status, outcome, durationMs: elapsed() });
      sendJson(res, err.status, err.body);
    }
  }

  async function admin(path: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!authorised(req)) {
      sendJson(res, 401, { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error' } });
      return;
    }
    if (path === '/_standin/stats' && req.method === 'GET') return sendJson(res, 200, stats);
    if (path === '/_standin/reset' && req.method === 'POST') {
      stats = emptyStats();
      return sendJson(res, 200, { reset: true });
    }
    if (path === '/_standin/faults' && req.method === 'PUT') {
      const body = await readJson(req);
      if (!isRecord(body)) throw new HttpError(400, 'invalid_request_error', null, 'body must be an object');
      const endpoint = body.endpoint;
      if (endpoint !== undefined && endpoint !== 'embeddings' && endpoint !== 'chat') {
        throw new HttpError(400, 'invalid_request_error', null, 'endpoint must be "embeddings" or "chat"');
      }
      setFaults(parseFaults(body), endpoint);
      return sendJson(res, 200, faults);
    }
    sendJson(res, 404, { error: { message: `no route ${req.method ?? ''} ${path}`, type: 'not_found_error' } });
  }

  function setFaults(patch: Partial<Faults>, endpoint?: Endpoint) {
    for (const e of endpoint ? [endpoint] : (['embeddings', 'chat'] as const)) faults[e] = { ...faults[e], ...patch };
    logger.info('model_host_faults_changed', { faults });
  }

  function handlerFor(endpoints: readonly Endpoint[]) {
    return (req: IncomingMessage, res: ServerResponse) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const run = async () => {
        if (path === '/health' && req.method === 'GET') {
          return sendJson(res, 200, {
            status: 'ok',
            endpoints,
            dim: config.dim,
            embedding_model: config.embeddingModel,
          });
        }
        if (path === '/v1/models' && req.method === 'GET') {
          return sendJson(res, 200, {
            object: 'list',
            data: endpoints.map((e) => ({
              id: e === 'chat' ? 'dense' : 'embeddings',
              object: 'model',
              owned_by: 'standin',
            })),
          });
        }
        if (path.startsWith('/_standin/')) return admin(path, req, res);
        const endpoint: Endpoint | undefined =
          path === '/v1/embeddings' ? 'embeddings' : path === '/v1/chat/completions' ? 'chat' : undefined;
        if (endpoint === undefined || !endpoints.includes(endpoint)) {
          return sendJson(res, 404, {
            error: {
              message: `no route ${req.method ?? ''} ${path}`,
              type: 'not_found_error',
              param: null,
              code: null,
            },
          });
        }
        if (req.method !== 'POST') {
          res.setHeader('allow', 'POST');
          return sendJson(res, 405, {
            error: { message: 'method not allowed', type: 'invalid_request_error', param: null, code: null },
          });
        }
        return model(endpoint, req, res);
      };
      run().catch((err: unknown) => {
        if (err instanceof HttpError) {
          if (!res.headersSent) sendJson(res, err.status, err.body);
          return;
        }
        logger.error('model_host_request_failed', { err, path });
        if (!res.headersSent) {
          sendJson(res, 500, { error: { message: 'internal error', type: 'server_error', param: null, code: null } });
        } else res.destroy();
      });
    };
  }

  const shared = config.embeddingPort !== 0 && config.embeddingPort === config.chatPort;
  const servers: Server[] = [];
  let embeddingOrigin: string;
  let chatOrigin: string;
  try {
    if (shared) {
      const server = createServer(handlerFor(['embeddings', 'chat']));
      servers.push(server);
      embeddingOrigin = chatOrigin = originOf(await listen(server, config.host, config.embeddingPort));
    } else {
      const e = createServer(handlerFor(['embeddings']));
      servers.push(e);
      embeddingOrigin = originOf(await listen(e, config.host, config.embeddingPort));
      const c = createServer(handlerFor(['chat']));
      servers.push(c);
      chatOrigin = originOf(await listen(c, config.host, config.chatPort));
    }
  } catch (err) {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    throw err;
  }

  const host: ModelHost = {
    embeddingUrl: `${embeddingOrigin}/v1/embeddings`,
    chatUrl: `${chatOrigin}/v1/chat/completions`,
    embeddingOrigin,
    chatOrigin,
    stats: () => structuredClone(stats),
    resetStats: () => {
      stats = emptyStats();
    },
    setFaults,
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
  return host;
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
