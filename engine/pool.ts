import { Worker } from 'node:worker_threads';
import type { FileRequest, FileResult } from './analyze-file.ts';
import type { WorkerRequest, WorkerResponse } from './parse-worker.ts';

interface Task {
  id: number;
  file: FileRequest;
  resolve: (r: FileResult | Error) => void;
}

interface Slot {
  worker: Worker;
  inFlight: Map<number, Task>;
  /** Bytes of the files this worker was given. */
  bytes: number;
  retiring: boolean;
}

/** Tasks in flight per worker: one running, one queued in its port, so a worker never waits for the main thread. */
const PER_WORKER = 2;
/**
 * A worker is replaced after it was given this many bytes of files: a guard against native memory that V8 does not
 * see (tree-sitter trees) piling up in a long-lived isolate. Replacing a worker costs ~0.3 CPU-s (loader, grammars,
 * queries), so it must be rare: measured on the whole Go standard library (122 MB, 11.5k files), replacing every 400
 * files cost 15 of 49 CPU-s and did not lower the peak RSS (~0.8-1.0 GB either way); with this bound no worker is
 * replaced on that tree.
 */
const RECYCLE_AFTER_BYTES = 512 * 1024 * 1024;

/**
 * A fixed pool of parse workers. `run` never rejects: a failure (including a worker that died) resolves to an Error
 * that the engine turns into an issue; a dead worker is replaced.
 */
export class ParsePool {
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private nextId = 1;
  private closed = false;

  constructor(readonly size: number) {
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  private spawn(): Slot {
    const worker = new Worker(new URL('./parse-worker.mjs', import.meta.url));
    const slot: Slot = { worker, inFlight: new Map(), bytes: 0, retiring: false };
    worker.on('message', (msg: WorkerResponse) => {
      const task = slot.inFlight.get(msg.id);
      if (!task) return;
      slot.inFlight.delete(msg.id);
      task.resolve(msg.ok ? msg.result : new Error(msg.error));
      if (slot.bytes >= RECYCLE_AFTER_BYTES && slot.inFlight.size === 0 && !this.closed) this.recycle(slot);
      this.pump();
    });
    const fail = (err: Error): void => {
      const index = this.slots.indexOf(slot);
      for (const task of slot.inFlight.values()) task.resolve(err);
      slot.inFlight.clear();
      if (index !== -1 && !this.closed) {
        this.slots[index] = this.spawn();
        this.pump();
      }
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (!this.closed && !slot.retiring) fail(new Error(`parse worker exited with code ${code}`));
    });
    return slot;
  }

  private recycle(slot: Slot): void {
    const index = this.slots.indexOf(slot);
    if (index === -1) return;
    slot.retiring = true;
    this.slots[index] = this.spawn();
    void slot.worker.terminate();
  }

  run(file: FileRequest): Promise<FileResult | Error> {
    if (this.closed) return Promise.resolve(new Error('parse pool is closed'));
    return new Promise((resolve) => {
      this.queue.push({ id: this.nextId++, file, resolve });
      this.pump();
    });
  }

  private pump(): void {
    for (;;) {
      if (this.queue.length === 0) return;
      let best: Slot | null = null;
      for (const s of this.slots)
        if (
          s.bytes < RECYCLE_AFTER_BYTES &&
          s.inFlight.size < PER_WORKER &&
          (best === null || s.inFlight.size < best.inFlight.size)
        )
          best = s;
      if (best === null) return;
      const task = this.queue.shift()!;
      best.inFlight.set(task.id, task);
      best.bytes += task.file.size;
      best.worker.postMessage({ id: task.id, file: task.file } satisfies WorkerRequest);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.queue.splice(0)) t.resolve(new Error('parse pool closed'));
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }
}
