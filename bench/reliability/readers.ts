/**
 * Concurrent readers of the harness: `n` loops, each cycling through a list of read endpoints of the graph component
 * until told to stop, recording latency per endpoint, statuses and hangs (requests cut at HANG_MS).
 */
import { URLS, fmt, http, log, percentile } from './common.ts';

export interface ReadTargets {
  sourceId: string;
  syncId: string;
  files: string[];
}

export type Endpoint = readonly [name: string, path: () => string];

const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)]!;

export function nodeId(t: ReadTargets, path: string): string {
  return `src_${t.sourceId}:${path}`;
}

/** The reads a user waits on: node detail, file, stats, search (the target's four) and the lists. */
export function ordinaryReads(t: ReadTargets): Endpoint[] {
  const node = () => encodeURIComponent(nodeId(t, pick(t.files)));
  return [
    ['node', () => `/api/graph/nodes/${node()}`],
    ['file', () => `/api/graph/nodes/${node()}/file`],
    ['stats', () => '/api/graph/stats'],
    ['search', () => `/api/graph/search?q=${encodeURIComponent(pick(['pool', 'error', 'sync run', 'cursor']))}`],
    ['sources', () => '/api/sources'],
    ['syncs', () => '/api/syncs?limit=20'],
  ];
}

/** Every read endpoint of the graph component (GET), each with ordinary parameters. */
export function everyRead(t: ReadTargets): Endpoint[] {
  const node = () => encodeURIComponent(nodeId(t, pick(t.files)));
  const word = () => encodeURIComponent(pick(['pool', 'error', 'sync', 'cursor', 'retry', 'event']));
  return [
    ...ordinaryReads(t),
    ['graph', () => `/api/graph?sync_ids=${t.syncId}`],
    ['chunks', () => `/api/graph/search/chunks?q=${word()}&mode=lexical`],
    ['chunks-hybrid', () => `/api/graph/search/chunks?q=${word()}`],
    ['symbols', () => `/api/graph/search/symbols?q=${word()}`],
    ['impact', () => `/api/graph/impact?node_id=${node()}&depth=3`],
    ['diff', () => `/api/graph/diff?from=${t.syncId}&to=${t.syncId}`],
    ['source', () => `/api/sources/${t.sourceId}`],
    ['sync', () => `/api/syncs/${t.syncId}`],
    ['sync-issues', () => `/api/syncs/${t.syncId}/issues`],
    ['schedules', () => '/api/schedules'],
  ];
}

export interface ReadFigures {
  lat: Record<string, number[]>;
  statuses: Record<string, number>;
  /** endpoint → status (0 with the connection error) → count, for answers other than 200. */
  odd: Record<string, Record<string, number>>;
  hung: number;
  /** Reads that overlapped a freeze of the harness (SIGSTOP from outside): left out of the figures. */
  frozen: number;
}

export async function readers(n: number, until: () => boolean, endpoints: Endpoint[]): Promise<ReadFigures> {
  const out: ReadFigures = { lat: {}, statuses: {}, odd: {}, hung: 0, frozen: 0 };
  await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      let k = i;
      while (!until()) {
        const [name, path] = endpoints[k++ % endpoints.length]!;
        const r = await http('GET', URLS.graph + path());
        if (r.frozen) {
          out.frozen++;
          continue;
        }
        (out.lat[name] ??= []).push(r.ms);
        out.statuses[r.status] = (out.statuses[r.status] ?? 0) + 1;
        if (r.status !== 200) {
          const o = (out.odd[name] ??= {});
          const key = r.status === 0 ? `0 ${r.failed ?? ''}`.slice(0, 120) : String(r.status);
          o[key] = (o[key] ?? 0) + 1;
        }
        if (r.hung) out.hung++;
      }
    }),
  );
  return out;
}

export const forMs = (ms: number) => {
  const end = Date.now() + ms;
  return () => Date.now() > end;
};

/** Logs the figures; returns the p99 over the named endpoints (all when `over` is not given). */
export function report(name: string, r: ReadFigures, over?: string[]): number {
  const every = Object.entries(r.lat)
    .filter(([k]) => !over || over.includes(k))
    .flatMap(([, v]) => v);
  log(
    `${name}: reads ${every.length}${over ? ` (${over.join(', ')})` : ''}, p50 ${fmt(percentile(every, 50))}, p99 ${fmt(percentile(every, 99))}, statuses ${JSON.stringify(r.statuses)}, hung ${r.hung}${r.frozen ? `, left out (frozen) ${r.frozen}` : ''}`,
  );
  for (const [k, v] of Object.entries(r.lat))
    log(
      `  ${k}: n ${v.length} p50 ${fmt(percentile(v, 50))} p99 ${fmt(percentile(v, 99))}${r.odd[k] ? ` not-200 ${JSON.stringify(r.odd[k])}` : ''}`,
    );
  return percentile(every, 99);
}
