/** What a sync may reuse from its source's previous completed sync (incremental.ts), as the workspace holds it. */
import type { ReusePlan } from './reuse.ts';

export interface ReuseContext {
  key: string;
  plan: ReusePlan;
  /** What the run's first clone recorded (step `reuse`), when this is a resumed clone. */
  recorded: ReuseLedger | null;
}

export interface ReuseLedger {
  previous_sync_id: string | null;
  reason?: string;
  /** The run's batch bounds (workspace.ts batchBounds), so a resumed clone cuts the same batches. */
  bounds?: number[];
}
