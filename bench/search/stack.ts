/**
 * The running stack as the evaluation sees it: the graph component (reads, sources) and the ingestion component
 * (sync commands), called directly on their ports (the gateway forwards the same requests unchanged).
 */
import type { Corpus } from './corpora.ts';
import { gitRepoOf } from './corpora.ts';
import type { Sync } from '../../lib/api/schemas.ts';
import type { Source } from '../../lib/api/routes/sources.ts';

const port = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
export const GRAPH_URL = process.env.GRAPH_URL ?? `http://127.0.0.1:${port('CKG_GRAPH_PORT', 8082)}`;
export const INGESTION_URL = process.env.INGESTION_URL ?? `http://127.0.0.1:${port('CKG_INGESTION_PORT', 8081)}`;

export async function call<T>(base: string, path: string, init?: { method?: string; body?: unknown }): Promise<T> {
  // One retry when the connection breaks (a kept-alive socket the server closed at the same moment): reads only.
  for (let attempt = 0; ; attempt++) {
    try {
      return await callOnce<T>(base, path, init);
    } catch (err) {
      if (attempt > 0 || (init?.method ?? 'GET') !== 'GET' || !(err instanceof TypeError)) throw err;
    }
  }
}

async function callOnce<T>(base: string, path: string, init?: { method?: string; body?: unknown }): Promise<T> {
  const res = await fetch(base + path, {
    method: init?.method ?? 'GET',
    headers: init?.body === undefined ? {} : { 'content-type': 'application/json' },
    body: init?.body === undefined ? null : JSON.stringify(init.body),
    signal: AbortSignal.timeout(120_000),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** Registers the corpus as a source and syncs it unless its newest completed sync is already there. */
export async function ensureSynced(
  corpus: Corpus,
  log: (s: string) => void,
): Promise<{ sourceId: string; syncId: string }> {
  const url = gitRepoOf(corpus);
  const source = await call<Source>(GRAPH_URL, '/api/sources', {
    method: 'POST',
    body: { owner: 'search-eval', name: corpus.name, url, default_branch: 'main' },
  });
  const done = await call<{ items: Sync[] }>(GRAPH_URL, `/api/syncs?source_id=${source.id}&status=completed&limit=1`);
  const last = done.items[0];
  if (last && !process.argv.includes('--resync')) return { sourceId: source.id, syncId: last.id };
  const started = Date.now();
  const sync = await call<Sync>(INGESTION_URL, '/api/syncs', {
    method: 'POST',
    body: { source_id: source.id, triggered_by: 'search-eval' },
  });
  for (;;) {
    await new Promise((r) => setTimeout(r, 2000));
    const s = await call<Sync>(GRAPH_URL, `/api/syncs/${sync.id}`);
    if (s.status === 'completed') break;
    if (s.status !== 'pending' && s.status !== 'running') throw new Error(`sync of ${corpus.name} ended ${s.status}`);
  }
  log(`synced ${corpus.name} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { sourceId: source.id, syncId: sync.id };
}
