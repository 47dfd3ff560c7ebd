/**
 * An unchanged re-sync shares its predecessor's graph (issue 30, growth; schema V50; docs/decisions.md "An unchanged
 * re-sync shares its predecessor's graph").
 *
 * A sync of the same commit as its source's previous completed sync, with the same analysis key for every file and
 * the same paths, would write exactly the graph its predecessor holds: the engine and both resolvers are pure
 * functions of the tree and the analysis key. Such a sync records `graph_sync_id` (the sync whose graph rows are its
 * graph: the predecessor, or the sync the predecessor itself shares) at its first clone and writes no vertex, edge or
 * per-sync graph-table row; its file records (ids, summaries) are its own. Readers map a sync to its graph rows with
 * `graph_sync_of` (V50); retention keeps shared rows while a sync sharing them is kept (lib/sync-runs/removal.ts).
 *
 * Taken only when the predecessor's graph is whole (its File vertices and defines edges are the counts it recorded,
 * its symbol graph resolved every edge it found), so a damaged graph is written afresh rather than inherited, and when
 * the precise tier would leave the graph as it left the predecessor's (samePrecise).
 */
import { withTransaction, type Pool, type Queryable } from '../lib/db.ts';
import {
  graphFileCounts,
  graphSyncPreciseStats,
  setGraphAlias,
  sharingCandidate,
  type PreciseOutcomes,
} from './store/shared-graph.ts';
import { livePreciseVersions } from './store/precise.ts';
import type { ReusePlan } from './reuse/reuse.ts';
import type { PreciseLanguageResult } from '../workflows/sync-types.ts';
import { INDEXER_LANGUAGES } from './precise/indexers.ts';
import { PRECISE_LANGUAGES } from './precise/settings.ts';
import { PRECISE_WORKER_TTL_SECONDS } from './precise/plan.ts';

/** Whether a sync of `paths` at `commit` may share the previous sync's graph, by what the plan knows. */
export function sharesGraph(plan: ReusePlan, commit: string, paths: readonly string[]): boolean {
  if (!plan.previousSyncId || !plan.previousCommit || plan.previousCommit !== commit) return false;
  if (plan.previousHashes.size !== paths.length) return false;
  // Every path reusable: same content (same commit) and the same analysis key, and a vector when embeddings are on.
  return paths.every((p) => plan.reusable.has(p));
}

/**
 * Whether the precise tier (issue 29) would leave this sync's graph as it left the previous one's (`precise`: the tier
 * is on for this sync; `live`: per language, the indexer versions live precise workers run now). Per language the
 * previous sync's files have: indexed or reused then is kept (the shared graph has the commit's precise edges, at least
 * as good as heuristic ones where no worker is live now); skipped or not run then is the same only if no worker could
 * run it now; failed then is tried again (no sharing) unless the failure is the indexer's own answer to this commit
 * (it failed or wrote an unreadable index, not a timeout, memory limit or lost clone) and every live worker of the
 * language runs that same indexer version: it would fail the same way, and each unchanged re-sync would write a
 * whole graph of its own for nothing (a Go tree's few .js files did that on every hourly re-sync). With the tier off,
 * only a previous sync without precise edges is the same.
 */
export function samePrecise(
  previous: PreciseOutcomes | null,
  languages: readonly string[],
  precise: boolean,
  live: ReadonlyMap<string, ReadonlySet<string>>,
): boolean {
  if (!precise) return Object.values(previous ?? {}).every((x) => x.status === 'skipped');
  for (const l of PRECISE_LANGUAGES) {
    if (!INDEXER_LANGUAGES[l].some((x) => languages.includes(x))) continue;
    const last = previous?.[l];
    const versions = live.get(l);
    if (last?.status === 'indexed' || last?.status === 'reused') continue;
    if ((last === undefined || last.status === 'skipped') && !versions) continue;
    if (last?.status === 'failed' && versions && failsAgain(last, versions)) continue;
    return false;
  }
  return true;
}

/** Failures that are the indexer's answer to the commit itself: the same indexer on the same commit answers the same. */
const DETERMINISTIC_FAILURES = new Set(['precise_indexer_failed', 'precise_index_unreadable']);

function failsAgain(last: { reason?: string; indexer?: string }, versions: ReadonlySet<string>): boolean {
  return (
    last.reason !== undefined &&
    DETERMINISTIC_FAILURES.has(last.reason) &&
    last.indexer !== undefined &&
    versions.size === 1 &&
    versions.has(last.indexer)
  );
}

/**
 * Records that `syncId` shares the graph of `previousSyncId` (or of the sync that one shares), when the previous
 * sync is still completed (its row is locked against a concurrent clean until this commits) and its graph is whole.
 * Returns the sync whose graph is shared, or null (the sync writes its own graph).
 */
export async function shareGraph(
  pool: Pool,
  syncId: string,
  previousSyncId: string,
  o: { precise: boolean },
): Promise<string | null> {
  return withTransaction(pool, async (tx) => {
    const p = await sharingCandidate(tx, previousSyncId, syncId);
    if (!p || p.defines === null || p.dangling !== 0) return null;
    const live = o.precise ? await livePreciseVersions(tx, PRECISE_WORKER_TTL_SECONDS) : new Map<string, Set<string>>();
    if (!samePrecise(p.precise, p.languages, o.precise, live)) return null;
    const w = await graphFileCounts(tx, p.owner);
    if (w.files !== p.files || w.defines !== p.defines) return null;
    await setGraphAlias(tx, syncId, p.owner);
    return p.owner;
  });
}

/**
 * The precise tier's outcome for a sync sharing another's graph, as its stats report it: the shared graph holds the
 * commit's precise edges, so each language the graph sync indexed or reused is `reused` here (null when the sync
 * shares no graph or the graph sync ran no precise step).
 */
export async function sharedPreciseStats(
  db: Queryable,
  syncId: string,
): Promise<Record<string, PreciseLanguageResult> | null> {
  const precise = await graphSyncPreciseStats<PreciseLanguageResult>(db, syncId);
  if (!precise) return null;
  return Object.fromEntries(
    Object.entries(precise).map(([language, x]) => [
      language,
      x.status === 'indexed' ? { ...x, status: 'reused' as const, ms: 0 } : x,
    ]),
  );
}
