/** The precise tier's figures on /metrics (the precise worker's registry; docs/operators.md). */
import { counter, histogram, PHASE_BUCKETS } from '../../lib/metrics.ts';

export function preciseMetrics() {
  return {
    runs: counter(
      'ckg_precise_runs_total',
      'Precise steps by language and outcome (indexed, reused: an unchanged commit, failed, skipped)',
      ['language', 'outcome'],
    ),
    seconds: histogram('ckg_precise_indexer_seconds', 'Wall time of one SCIP indexer run', ['language'], PHASE_BUCKETS),
    edges: counter('ckg_precise_edges_total', 'Symbol edges written by the precise tier (provenance scip)', [
      'language',
    ]),
  };
}
