/**
 * The parse and write of a clone's batches (the sync workflow's parsing phase): one scheduler. Both steps run on the
 * worker holding the clone; every batch is parsed, then written (one transaction each), in batch order; a batch
 * already written (a resumed run) is skipped. The clone's plan says how many writes may run at once (k =
 * CloneResult.writeConcurrency: 1, or 2 for a light tree, activities/sync/helpers/workspace.ts batchPlan):
 *
 * - parses run in batch order, up to k at once; the parse of batch i + k - 1 starts when batch i's turn comes;
 * - a write starts as soon as its batch is parsed and a write slot is free, in batch order;
 * - one slot (k = 1, every full sync): the loop does not wait for the write: it queues it behind the one running and
 *   goes on parsing, at most PARSE_AHEAD batches ahead (the parse of batch b waits for the write of b - 1 -
 *   PARSE_AHEAD), so a long write does not leave the parse threads idle (with one batch of look-ahead it did for ~6 s
 *   of a ~32 s Go pipeline), and at most three parsed batches are held in memory;
 * - k slots (a light tree: at most BATCH_FILES files to analyse in all, its parses mostly import resolution of
 *   unchanged files, ~0.1 s): the loop waits for a free slot before it goes on, which bounds what is parsed ahead.
 *
 * A failed step stops the loop; running steps are always awaited before it returns.
 */
import { deprecatePatch } from '@temporalio/workflow';
import type { CloneResult } from './sync-types.ts';
import { BATCH_FILES } from './sync-contract.ts';
import { asError, count, onHost, type StepContext, type Totals } from './sync-options.ts';
import { CONCURRENT_WRITES_PATCH, PARSE_AHEAD_PATCH } from './sync-patches.ts';

/**
 * Batches the parse may run ahead of the write. Two: while batch b is written and b + 1 waits, b + 2 is parsed
 * (the parsed batches are held in the host worker's memory, so one more batch of ~500 files' analyses).
 */
const PARSE_AHEAD = 2;

/** Parses batch b on the worker holding the clone. */
function parse(ctx: StepContext, clone: CloneResult, b: number): Promise<unknown> {
  const first = (clone.bounds ? clone.bounds[b]! : b * BATCH_FILES) + 1;
  const last = clone.bounds ? clone.bounds[b + 1]! : Math.min(clone.files, (b + 1) * BATCH_FILES);
  return onHost(
    ctx,
    clone,
    `parse ${count(clone.files)} files, batch ${b + 1}/${clone.batches} (files ${count(first)}-${count(last)})`,
  ).parseBatch({ ...ctx.ids, batch: b });
}

/** Writes the parsed batch and adds what it wrote to the totals. */
async function write(ctx: StepContext, clone: CloneResult, batch: number): Promise<void> {
  const r = await onHost(
    ctx,
    clone,
    `write batch ${batch + 1}/${clone.batches}: file records, chunks, vertices, edges`,
  ).writeBatch({ ...ctx.ids, batch });
  for (const k of Object.keys(ctx.totals) as Array<keyof Totals>) ctx.totals[k] += r[k];
  // A result recorded by a worker that did not count them leaves the embedding steps to find out.
  if (r.embedInputs === undefined || r.chunksToEmbed === undefined) ctx.toEmbed.known = false;
  else {
    ctx.toEmbed.files += r.embedInputs;
    ctx.toEmbed.chunks += r.chunksToEmbed;
  }
  ctx.written.add(batch);
  ctx.setPhase('parsing', ctx.totals.files, clone.files);
}

/** The writes of one loop: queued in batch order, at most k at once (writeSlots). */
interface WriteQueue {
  /** Queues the write of `batch` (it starts now when a slot is free). */
  add(batch: number): void;
  /** A promise that settles when a slot frees, or null when the loop need not wait (one slot: writes are queued). */
  full(): Promise<void> | null;
  /** The promise of the write queued `back` writes before the last one (one slot), for the parse-ahead bound. */
  behind(back: number): Promise<void> | undefined;
  /** Every queued write settled. */
  settled(): Promise<unknown>;
}

type Failed = { error: Error | null };

/**
 * One slot: a chain, each write starting when its parse and the previous write are done. With no write running or
 * waiting, it is scheduled at once (before the next parse: the order an operator reads in the history).
 */
function writeChain(ctx: StepContext, clone: CloneResult, failed: Failed): WriteQueue {
  let lastWrite: Promise<void> = Promise.resolve();
  let queued = 0;
  // Write promises of the batches queued in this loop, in order (to wait for the one PARSE_AHEAD + 1 back).
  const writes: Array<Promise<void>> = [];
  return {
    add(batch) {
      const run = async (): Promise<void> => {
        try {
          if (failed.error) return;
          await write(ctx, clone, batch);
        } catch (err) {
          failed.error = asError(err);
        } finally {
          queued--;
        }
      };
      queued++;
      lastWrite = queued === 1 ? run() : lastWrite.then(run);
      writes.push(lastWrite);
    },
    full: () => null,
    behind: (back) => writes[writes.length - 1 - back],
    settled: () => lastWrite,
  };
}

/** k slots: each write its own transaction, started as soon as the loop hands it over (after waiting for a slot). */
function writeSlots(ctx: StepContext, clone: CloneResult, failed: Failed, k: number): WriteQueue {
  const running = new Set<Promise<void>>();
  return {
    add(batch) {
      const w: Promise<void> = write(ctx, clone, batch)
        .catch((err: unknown) => {
          failed.error ??= asError(err);
        })
        .finally(() => running.delete(w));
      running.add(w);
    },
    full: () => (running.size >= k ? Promise.race(running) : null),
    behind: () => undefined,
    settled: () => Promise.all(running),
  };
}

/** Parses and writes every batch of the clone not yet written (the scheduler described above). */
export async function parseAndWrite(ctx: StepContext, clone: CloneResult): Promise<void> {
  deprecatePatch(PARSE_AHEAD_PATCH);
  const k = clone.writeConcurrency ?? 1;
  if (k > 1) deprecatePatch(CONCURRENT_WRITES_PATCH);
  const todo: number[] = [];
  for (let b = 0; b < clone.batches; b++) if (!ctx.written.has(b)) todo.push(b);
  const failed: Failed = { error: null };
  const check = (): void => {
    if (failed.error) throw failed.error;
  };
  const writes = k > 1 ? writeSlots(ctx, clone, failed, k) : writeChain(ctx, clone, failed);
  const parses: Array<Promise<unknown>> = [];
  const startParses = (upTo: number): void => {
    while (parses.length < Math.min(upTo, todo.length)) {
      const p = parse(ctx, clone, todo[parses.length]!);
      // Awaited in order below; one that fails while an earlier one is awaited must not go unhandled.
      p.catch(() => undefined);
      parses.push(p);
    }
  };
  try {
    for (let i = 0; i < todo.length; i++) {
      const behind = writes.behind(PARSE_AHEAD);
      if (behind) await behind;
      check();
      startParses(i + k);
      await parses[i];
      check();
      for (let slot = writes.full(); slot; slot = writes.full()) await slot;
      check();
      writes.add(todo[i]!);
    }
  } finally {
    // Never leave a step running behind a failure.
    await writes.settled();
    await Promise.all(parses.map((p) => p.catch(() => undefined)));
  }
  check();
}
