/**
 * The resolver's thread (resolve-thread.ts): holds the files of each job it is given, their facts parsed from JSON
 * as they arrive, and resolves a job when asked. A job's bad input fails that job only.
 */
import { parentPort } from 'node:worker_threads';
import { resolveSymbolGraph } from './resolve.ts';
import type { SymbolFacts, SymbolFileInput } from './types.ts';
import { packEdges, packedBuffers, type ResolverRequest, type ResolverResponse } from './resolve-thread.ts';

interface Job {
  parts: Map<number, SymbolFileInput[]>;
  error?: string;
}

const port = parentPort;
if (port === null) throw new Error('resolve-worker must run in a worker thread');
const jobs = new Map<number, Job>();

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

port.on('message', (req: ResolverRequest) => {
  let job = jobs.get(req.job);
  if (req.t === 'drop') {
    jobs.delete(req.job);
    return;
  }
  if (!job) jobs.set(req.job, (job = { parts: new Map() }));
  if (req.t === 'files') {
    if (job.error !== undefined) return;
    try {
      job.parts.set(
        req.part,
        req.files.map((f) => ({
          file_path: f.file_path,
          language: f.language,
          facts: JSON.parse(f.facts) as SymbolFacts,
          imports: f.imports,
        })),
      );
    } catch (err) {
      job.error = `${req.files.length} files of part ${req.part}: ${messageOf(err)}`;
    }
    return;
  }
  jobs.delete(req.job);
  let res: ResolverResponse;
  let transfer: ArrayBuffer[] = [];
  if (job.error !== undefined) res = { job: req.job, ok: false, error: job.error };
  else {
    try {
      const files: SymbolFileInput[] = [];
      for (const list of job.parts.values()) files.push(...list);
      const cuts = req.cuts;
      const { edges, ...output } = resolveSymbolGraph(
        { files },
        cuts
          ? {
              cuts,
              onPart: (part, list) => {
                const p = packEdges(list);
                port.postMessage({ job: req.job, part, edges: p } satisfies ResolverResponse, packedBuffers(p));
              },
            }
          : undefined,
      );
      const packed = packEdges(edges);
      transfer = packedBuffers(packed);
      res = { job: req.job, ok: true, output, edges: packed };
    } catch (err) {
      res = { job: req.job, ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
    }
  }
  port.postMessage(res, transfer);
});
