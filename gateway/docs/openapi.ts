/**
 * The one API document at /openapi.json: the gateway's own paths merged with the documents the graph and
 * ingestion components serve at GET /openapi.json. Fetched at start-up and again on demand once the merged copy is
 * older than `ttlMs`; a component that cannot be reached contributes its last good document (or nothing yet).
 */
import type { Logger } from '../../lib/log.ts';
import type { Destination } from '../routes.ts';
import type { OpenApiDoc } from './gateway-openapi.ts';
import { mergeDocuments, type Part } from './merge.ts';

export interface ComponentSource {
  name: string;
  destination: Destination;
  url: string;
}

export interface OpenApiOptions {
  base: OpenApiDoc;
  sources: readonly ComponentSource[];
  ttlMs: number;
  log: Logger;
  fetchTimeoutMs?: number;
  /** Milliseconds since the epoch, for the merged copy's age (Date.now). */
  now?: () => number;
}

export interface OpenApiService {
  document(): Promise<OpenApiDoc>;
}

export function createOpenApi(options: OpenApiOptions): OpenApiService {
  const lastGood = new Map<string, OpenApiDoc>();
  let merged: { doc: OpenApiDoc; at: number } | undefined;
  let inflight: Promise<OpenApiDoc> | undefined;
  const now = options.now ?? Date.now;

  async function fetchOne(source: ComponentSource): Promise<void> {
    try {
      const res = await fetch(source.url, { signal: AbortSignal.timeout(options.fetchTimeoutMs ?? 2000) });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const doc = await res.json();
      if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error('not a JSON object');
      lastGood.set(source.name, doc as OpenApiDoc);
    } catch (err) {
      options.log.warning('openapi_fetch_failed', { upstream: source.name, url: source.url, error: err });
    }
  }

  async function rebuild(): Promise<OpenApiDoc> {
    await Promise.all(options.sources.map(fetchOne));
    const parts: Part[] = [];
    for (const s of options.sources) {
      const doc = lastGood.get(s.name);
      if (doc) parts.push({ name: s.name, destination: s.destination, doc });
    }
    const doc = mergeDocuments(options.base, parts);
    merged = { doc, at: now() };
    return doc;
  }

  return {
    document() {
      if (merged && now() - merged.at < options.ttlMs) return Promise.resolve(merged.doc);
      inflight ??= rebuild().finally(() => (inflight = undefined));
      return inflight;
    },
  };
}
