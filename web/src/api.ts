/**
 * The gateway's REST API as the explorer uses it: same origin, bearer token in the Authorization header (never in
 * the URL), one retry with a refreshed token after a 401, errors in the service's one JSON shape.
 */
import type { FileText, NodeDetail as ApiNodeDetail, Summary as ApiSummary } from '../../lib/api/routes/nodes.ts';
import type { Graph, GraphEdgeData, GraphNodeData } from '../../lib/api/routes/graph.ts';
import type { Sync } from '../../lib/api/schemas.ts';
import type { Auth } from './auth.ts';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface Source {
  id: string;
  owner: string;
  name: string;
  url: string;
  last_sync_id: string | null;
}

/** A sync run as the service answers it (lib/api/schemas.ts). */
export type SyncRun = Sync;

/** The merged graph as the service answers it (lib/api/routes/graph.ts). */
export type NodeData = GraphNodeData;
export type EdgeData = GraphEdgeData;
export type MergedGraph = Graph;

/** Node detail, file text and summary as the service answers them (lib/api/routes/nodes.ts). */
export type NodeDetail = ApiNodeDetail;

/** A symbol's detail and its related symbols (GET /api/graph/symbol, lib/api/routes/symbols.ts). */
export type { Completeness, RelatedSymbol, SymbolDetail } from '../../lib/api/routes/symbols.ts';

export type Summary = ApiSummary;
export type FileContent = FileText;

export interface Api {
  get<T>(path: string, query?: Record<string, string | number | undefined>): Promise<T>;
  post<T>(path: string, body: unknown): Promise<T>;
}

function withQuery(path: string, query: Record<string, string | number | undefined> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

async function errorOf(res: Response): Promise<ApiError> {
  let code = `HTTP_${res.status}`;
  let message = res.statusText || `HTTP ${res.status}`;
  try {
    const body = (await res.json()) as { error?: { code?: string; message?: string } };
    if (body.error?.code) code = body.error.code;
    if (body.error?.message) message = body.error.message;
  } catch {
    // not the JSON error shape: keep the status line
  }
  return new ApiError(res.status, code, message);
}

export function createApi(auth: Auth): Api {
  const send = async (method: string, url: string, body?: unknown): Promise<unknown> => {
    const attempt = async (token: string) =>
      fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    let res = await attempt(await auth.token());
    if (res.status === 401) res = await attempt(await auth.refresh());
    if (!res.ok) throw await errorOf(res);
    const text = await res.text();
    return text ? (JSON.parse(text) as unknown) : undefined;
  };
  return {
    get: async <T>(path: string, query?: Record<string, string | number | undefined>) =>
      (await send('GET', withQuery(path, query))) as T,
    post: async <T>(path: string, body: unknown) => (await send('POST', path, body)) as T,
  };
}

/** `/api/graph/nodes/<id>[/<sub>]`: the whole node id percent-encoded, so its slashes never split the path. */
export function nodePath(nodeId: string, sub?: 'summary' | 'file'): string {
  return `/api/graph/nodes/${encodeURIComponent(nodeId)}${sub ? `/${sub}` : ''}`;
}
