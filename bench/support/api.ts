/**
 * The components' REST API as benchmarks drive it: straight to the graph and ingestion components of a running stack
 * (`bash scripts/stack.sh up`; they trust their callers, the gateway authenticates), ports from CKG_*_PORT.
 */
export const graphUrl = `http://127.0.0.1:${process.env.CKG_GRAPH_PORT ?? '8082'}`;
export const ingestionUrl = `http://127.0.0.1:${process.env.CKG_INGESTION_PORT ?? '8081'}`;

/** One JSON request; a non-2xx answer throws with its status and the start of its body. */
export async function call<T>(method: string, url: string, body?: unknown): Promise<T> {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

export interface BenchRun {
  id: string;
  status: string;
  error?: string | null;
  stats?: { files?: number; symbols?: number; edges?: { depends_on?: number; defines?: number } };
}

/**
 * Starts a sync of the source (POST /api/syncs) and polls it until it is no longer pending or running, at most
 * `timeoutMs`; returns the final run and the wall time from the request to the final status.
 */
export async function syncToEnd(sourceId: string, timeoutMs: number): Promise<{ run: BenchRun; ms: number }> {
  const t0 = performance.now();
  const started = await call<BenchRun>('POST', `${ingestionUrl}/api/syncs`, {
    source_id: sourceId,
    triggered_by: 'bench',
  });
  let run = started;
  while (run.status === 'pending' || run.status === 'running') {
    if (performance.now() - t0 > timeoutMs) throw new Error(`sync ${started.id} still ${run.status} after the timeout`);
    await new Promise((r) => setTimeout(r, 250));
    run = await call<BenchRun>('GET', `${graphUrl}/api/syncs/${started.id}`);
  }
  return { run, ms: performance.now() - t0 };
}
