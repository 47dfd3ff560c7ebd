/**
 * The parse and write of a clone's batches (the sync workflow's parsing phase). Both steps run on the worker holding
 * the clone; every batch is parsed, then written (one transaction each), in batch order; a batch already written (a
 * resumed run) is skipped. A failed step stops the loop; a running step is always awaited before it returns.
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

/** Parses and writes every batch of the clone not yet written. */
export async function parseAndWrite(ctx: StepContext, clone: CloneResult): Promise<void> {
  deprecatePatch(PARSE_AHEAD_PATCH);
  const k = clone.writeConcurrency ?? 1;
  if (k > 1) {
    deprecatePatch(CONCURRENT_WRITES_PATCH);
    return batchesTogether(ctx, clone, k);
  }
  return batchesAhead(ctx, clone);
}

/**
 * Parse and write every batch not yet written, the parse running up to PARSE_AHEAD batches ahead of the write:
 * the parse of batch b waits only for the write of batch b - 1 - PARSE_AHEAD, so a long write does not leave
 * the parse threads idle (with one batch of look-ahead it did for ~6 s of a ~32 s Go pipeline). Writes run one
 * at a time, in batch order. A failed step stops the loop; a running write is always awaited.
 */
async function batchesAhead(ctx: StepContext, clone: CloneResult): Promise<void> {
  const failed: { error: Error | null } = { error: null };
  const check = (): void => {
    if (failed.error) throw failed.error;
  };
  // The write chain: each write starts when its parse and the previous write are done. With no write running
  // or waiting, it is scheduled at once (before the next parse: the order an operator reads in the history).
  let lastWrite: Promise<void> = Promise.resolve();
  let queued = 0;
  // Write promises of the batches parsed in this loop, in order (to wait for the one PARSE_AHEAD + 1 back).
  const writes: Array<Promise<void>> = [];
  const enqueueWrite = (batch: number): void => {
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
  };
  try {
    for (let b = 0; b < clone.batches; b++) {
      if (ctx.written.has(b)) continue;
      const behind = writes[writes.length - 1 - PARSE_AHEAD];
      if (behind) await behind;
      check();
      await parse(ctx, clone, b);
      check();
      enqueueWrite(b);
    }
  } finally {
    // Never leave a write running behind a failure.
    await lastWrite;
  }
  check();
}

/**
 * The loop of a light tree (CloneResult.writeConcurrency k > 1): up to k parses and k writes run at once, each
 * write its own transaction, writes scheduled in batch order as soon as their batch is parsed and a write slot is
 * free. A light tree has at most BATCH_FILES files to analyse in all, so its parsed batches are small whatever
 * runs ahead; its parses are mostly import resolution of unchanged files (~0.1 s), so the next one starts with
 * this one instead of after it. A failed step stops the loop; running steps are always awaited.
 */
async function batchesTogether(ctx: StepContext, clone: CloneResult, k: number): Promise<void> {
  const todo: number[] = [];
  for (let b = 0; b < clone.batches; b++) if (!ctx.written.has(b)) todo.push(b);
  const failed: { error: Error | null } = { error: null };
  const check = (): void => {
    if (failed.error) throw failed.error;
  };
  const parses: Array<Promise<unknown>> = [];
  const startParses = (upTo: number): void => {
    while (parses.length < Math.min(upTo, todo.length)) {
      const p = parse(ctx, clone, todo[parses.length]!);
      // Awaited in order below; one that fails while an earlier one is awaited must not go unhandled.
      p.catch(() => undefined);
      parses.push(p);
    }
  };
  const running = new Set<Promise<void>>();
  try {
    for (let i = 0; i < todo.length; i++) {
      startParses(i + k);
      await parses[i];
      check();
      while (running.size >= k) await Promise.race(running);
      check();
      const w: Promise<void> = write(ctx, clone, todo[i]!)
        .catch((err: unknown) => {
          failed.error ??= asError(err);
        })
        .finally(() => running.delete(w));
      running.add(w);
    }
  } finally {
    // Never leave a step running behind a failure.
    await Promise.all(running);
    await Promise.all(parses.map((p) => p.catch(() => undefined)));
  }
  check();
}
