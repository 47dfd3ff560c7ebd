import { parentPort } from 'node:worker_threads';
import type { FileRequest, FileResult } from './analyze-file.ts';
import { analyzeFile } from './analyze-file.ts';

export interface WorkerRequest {
  id: number;
  file: FileRequest;
}

export type WorkerResponse = { id: number; ok: true; result: FileResult } | { id: number; ok: false; error: string };

const port = parentPort;
if (port === null) throw new Error('parse-worker must run in a worker thread');
port.on('message', (req: WorkerRequest) => {
  analyzeFile(req.file).then(
    (result) => port.postMessage({ id: req.id, ok: true, result } satisfies WorkerResponse),
    (err: unknown) =>
      port.postMessage({
        id: req.id,
        ok: false,
        error: err instanceof Error ? err.message : String(err),
      } satisfies WorkerResponse),
  );
});
