/**
 * resolveDependencies: turns the resolved imports of every written batch into depends_on edges (file → file, one per
 * pair with the summed weight; a target without a File vertex becomes a warning issue). Reads what the write steps
 * left in the step ledger, so it needs no clone and runs on any worker. One transaction with its ledger row:
 * idempotent, like writeBatch.
 */
import { withTransaction } from '../../lib/db.ts';
import type { ResolveResult, SyncIds } from '../../workflows/sync-types.ts';
import { loadGraphLabels, recordIssues, writeDependsOn, type DependingFile } from '../store/index.ts';
import type { ActivityDeps } from './helpers/deps.ts';
import { startHeartbeat } from './helpers/heartbeat.ts';
import { ProgressReporter } from './helpers/progress.ts';
import { claimRun } from './helpers/run-claim.ts';
import { RESOLVE_STEP, recordStep, recordedResult, withSavepoints, writeHandoffs } from '../store/ledger.ts';
import { carrySummaries } from '../reuse/incremental.ts';
import { graphAlias, sharedDependsOn } from '../store/shared-graph.ts';

interface WriteHandoff {
  files: Array<[string, string]>;
  dependencies: Array<[string, Array<[string, number]>]>;
}

export function createResolveDependencies({ pool, settings, log }: ActivityDeps) {
  async function resolveDependencies(input: SyncIds): Promise<ResolveResult> {
    const { syncId, sourceId } = input;
    const done = await recordedResult<ResolveResult>(pool, syncId, RESOLVE_STEP);
    if (done) return done;
    const hb = startHeartbeat(Math.max(200, Math.floor(settings.heartbeatTimeoutMs / 4)));
    const progress = new ProgressReporter(pool, syncId, sourceId, settings.progressIntervalMs, log);
    try {
      await claimRun(pool, input);
      const handoffs = await writeHandoffs<WriteHandoff>(pool, syncId);
      const vertexByPath = new Map<string, string>();
      const depending: DependingFile[] = [];
      for (const handoff of handoffs) {
        for (const [path, vertex] of handoff.files) vertexByPath.set(path, vertex);
        for (const [file_path, deps] of handoff.dependencies) {
          depending.push({ file_path, dependencies: deps.map(([target_path, weight]) => ({ target_path, weight })) });
        }
      }
      await progress.phase('graphing', vertexByPath.size);
      const labels = await loadGraphLabels(pool);
      hb.check();
      // A sync sharing its predecessor's graph writes no edge: they are there (graph-alias.ts).
      const graphOf = await graphAlias(pool, syncId);
      const result = await withTransaction(pool, async (client) => {
        const d = graphOf
          ? { dependsOnEdges: await sharedDependsOn(client, graphOf), issues: [] }
          : await writeDependsOn(withSavepoints(client), input, depending, vertexByPath, labels);
        await recordIssues(client, syncId, d.issues);
        // Summaries carried by reused files stay only where the neighbourhood is unchanged (issue 12).
        const summariesDropped = await carrySummaries(client, syncId, depending);
        const result: ResolveResult = { dependsOnEdges: d.dependsOnEdges, summariesDropped };
        await recordStep(client, syncId, RESOLVE_STEP, result);
        return result;
      });
      progress.report('graphing', vertexByPath.size, vertexByPath.size);
      await progress.flush();
      return result;
    } finally {
      hb.stop();
    }
  }
  return { resolveDependencies };
}
