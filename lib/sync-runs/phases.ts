/**
 * The phases of a sync run, as `progress_meta.phase` names them. The working phases, in order (their index is
 * `progress_meta.phase_index`, the list `progress_meta.phases`); before them `starting`, and at the end the run's own
 * status or `refused` (a disabled source); `resumed` while a run taken back by a Reset waits for its next step.
 */
export const PHASES = [
  'cloning',
  'parsing',
  'graphing',
  'embedding_summaries',
  'embedding_chunks',
  'finalizing',
] as const;
export type Phase = (typeof PHASES)[number];

/** The phase of a run that has begun and not yet reached cloning. */
export const STARTING_PHASE = 'starting';
/** The phase of a failed or cancelled run taken back to running by another workflow execution (a Reset). */
export const RESUMED_PHASE = 'resumed';
/** The phase of a run refused at its start (its source is disabled). */
export const REFUSED_PHASE = 'refused';
