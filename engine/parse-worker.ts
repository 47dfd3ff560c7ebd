import { parentPort } from 'node:worker_threads';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { FileRequest, FileResult } from './analyze-file.ts';
import { analyzeFile } from './analyze-file.ts';

export interface WorkerRequest {
  id: number;
  file: FileRequest;
}

export type WorkerResponse = { id: number; ok: true; result: FileResult } | { id: number; ok: false; error: string };

/**
 * tree-sitter trees live in native memory that V8 does not see: a tree is freed only when the garbage collector
 * finalises its JS wrapper, and since the wrappers are small V8 sees no reason to collect old space often. The
 * worker therefore runs a full collection after every GC_EVERY_BYTES of analysed files, which bounds the native
 * memory held by dead trees to roughly that much source (a tree takes several times its source's size). Each forced
 * collection is a full mark-compact with V8's helper threads: every 8 MB (the first setting) they cost ~9 CPU-s of
 * the ~50 spent analysing the Go standard library with two threads, every 32 MB ~7 s, every 64 MB ~6 s, with peak
 * RSS within run-to-run noise (640-940 MB in each setting, none at all included; docs/benchmarks.md).
 */
const GC_EVERY_BYTES = 32 * 1024 * 1024;

function exposeGc(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (existing) return existing;
  // --expose-gc only adds `gc` to contexts created after it is set; a fresh context picks it up.
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

const collect = exposeGc();
let sinceGc = 0;

const port = parentPort;
if (port === null) throw new Error('parse-worker must run in a worker thread');
port.on('message', (req: WorkerRequest) => {
  analyzeFile(req.file)
    .then(
      (result) => port.postMessage({ id: req.id, ok: true, result } satisfies WorkerResponse),
      (err: unknown) =>
        port.postMessage({
          id: req.id,
          ok: false,
          error: err instanceof Error ? err.message : String(err),
        } satisfies WorkerResponse),
    )
    .finally(() => {
      sinceGc += Math.min(req.file.size, req.file.maxFileBytes);
      if (sinceGc >= GC_EVERY_BYTES) {
        sinceGc = 0;
        collect();
      }
    });
});
