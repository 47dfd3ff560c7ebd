/**
 * What every phase of the sync workflow shares: the activity options (control steps, long steps, steps on the worker
 * holding the clone), the state of one run's steps (StepContext), and small helpers. Workflow code: no I/O, no Intl.
 */
import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  proxyActivities,
  TimeoutFailure,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { SyncActivities } from '../activities/index.ts';
import type {
  BeginSyncResult,
  CloneResult,
  PhaseDurations,
  SyncActivitySettings,
  SyncIds,
  WriteBatchResult,
} from './sync-types.ts';

/**
 * Short bookkeeping activities (status changes, events): retried patiently. They heartbeat; once beginSync has told
 * the workflow the worker's heartbeat timeout, a control step whose worker died is retried elsewhere after that
 * timeout instead of after its start-to-close minute.
 */
const CONTROL: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 30 },
};

export function control(summary: string, s?: SyncActivitySettings) {
  return proxyActivities<SyncActivities>({
    ...CONTROL,
    ...(s ? { heartbeatTimeout: s.heartbeatTimeoutMs } : {}),
    summary,
  });
}

export const NOT_RETRIED = ['CloneFailed', 'SyncNotRunning', 'WorkspaceLost'];

/** The options of the long steps: heartbeating, cancellable, retried up to the worker's setting. */
function stepOptions(s: SyncActivitySettings): ActivityOptions {
  return {
    startToCloseTimeout: s.attemptTimeoutMs,
    heartbeatTimeout: s.heartbeatTimeoutMs,
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: {
      initialInterval: '1 second',
      maximumInterval: '30 seconds',
      maximumAttempts: s.maxAttempts,
      nonRetryableErrorTypes: NOT_RETRIED,
    },
  };
}

/** What the batch writes add up (WriteBatchResult's counts). */
export type Totals = Omit<WriteBatchResult, 'issues' | 'embedInputs' | 'chunksToEmbed'>;

/** The state of one run's steps, shared by its phases. */
export interface StepContext {
  ids: SyncIds;
  begin: BeginSyncResult & { proceed: true };
  setPhase: (phase: string, done: number, total: number) => void;
  durations: PhaseDurations;
  totals: Totals;
  /** Batches written (kept across clones: a resumed run skips them). */
  written: Set<number>;
  /** What the embedding steps will find to do, as the writes counted it (`known` false: a worker did not count). */
  toEmbed: { known: boolean; files: number; chunks: number };
}

export function stepContext(
  ids: SyncIds,
  begin: BeginSyncResult & { proceed: true },
  setPhase: StepContext['setPhase'],
): StepContext {
  return {
    ids,
    begin,
    setPhase,
    durations: {},
    totals: { files: 0, binaryFiles: 0, chunks: 0, symbols: 0, fileVertices: 0, symbolVertices: 0, definesEdges: 0 },
    written: new Set(),
    toEmbed: { known: true, files: 0, chunks: 0 },
  };
}

/** A long step on the shared queue. */
export function step(ctx: StepContext, summary: string) {
  return proxyActivities<SyncActivities>({ ...stepOptions(ctx.begin.settings), summary });
}

/** A long step on the queue of the worker holding the clone; past hostQueueTimeoutMs that worker is taken as gone. */
export function onHost(ctx: StepContext, clone: CloneResult, summary: string) {
  const s = ctx.begin.settings;
  return proxyActivities<SyncActivities>({
    ...stepOptions(s),
    taskQueue: clone.hostQueue,
    scheduleToStartTimeout: s.hostQueueTimeoutMs,
    summary,
  });
}

export function failureMessage(err: unknown): string {
  let e: unknown = err;
  // An activity failure wraps the activity's own error; show that one.
  while (e instanceof ActivityFailure && e.cause) e = e.cause;
  if (e instanceof ApplicationFailure || e instanceof Error) return e.message || e.name;
  return String(e);
}

export function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/** The worker holding the clone is gone (or restarted): its steps cannot run; clone again elsewhere. */
export function hostLost(err: unknown): boolean {
  if (!(err instanceof ActivityFailure)) return false;
  const cause = err.cause;
  if (cause instanceof TimeoutFailure)
    return cause.timeoutType === 'SCHEDULE_TO_START' || cause.timeoutType === 'HEARTBEAT';
  return cause instanceof ApplicationFailure && cause.type === 'WorkspaceLost';
}

/** 3139 → "3,139" (no Intl in workflow code: it must replay the same everywhere). */
export function count(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
