/**
 * The resolver (resolveSymbolGraph) on a thread of its own, so that the caller's event loop stays free while a
 * repository is resolved (seconds for the Go standard library). One thread per process, started at the first use and
 * kept (it costs a TypeScript loader and the engine's modules to start, ~0.3 CPU-s; idle, it holds no files): each
 * ResolverThread is a job on it. A job's facts come as the JSON they are stored as and are parsed on that thread, part
 * by part as they are given (a part given again replaces the earlier one); its result is the same as
 * resolveSymbolGraph's over the same files, whatever the order of the parts. Jobs resolve one at a time, in the order
 * asked. A run given cuts (EdgeParts) hands its edges over in parts as it goes, each part as soon as it is final.
 */
import { Worker } from 'node:worker_threads';
import type { ResolvedImport, ResolveOutput, SymbolEdge } from './types.ts';
import type { EdgeParts } from './resolve.ts';

/** A file as the thread takes it: its facts as JSON (SymbolFacts). */
export interface SymbolFileJson {
  file_path: string;
  language: string;
  facts: string;
  imports: ResolvedImport[];
}

export type ResolverRequest =
  | { t: 'files'; job: number; part: number; files: SymbolFileJson[] }
  | { t: 'run'; job: number; cuts?: string[] }
  | { t: 'drop'; job: number };
export type ResolverResponse =
  /** A part of the edges of a run given cuts, before its answer. */
  | { job: number; part: number; edges: PackedEdges }
  | { job: number; ok: true; output: Omit<ResolveOutput, 'edges'>; edges: PackedEdges }
  | { job: number; ok: false; error: string };

/**
 * The resolver's edges as they cross from its thread: their ends in one string, labels and provenances once, the
 * rest in typed arrays whose buffers are transferred, not copied. Cloned as objects, the Go standard library's 371k edges took 1-1.5 s to
 * serialize on the thread and as long to rebuild on the caller's (2-3 s for both at load 13), all of it after the
 * last batch, when the sync waits for nothing else.
 */
export interface PackedEdges {
  /**
   * Edge i's `from` and `to` are ends[2i] and ends[2i + 1]: the list joined with NUL (one string crosses at the cost
   * of a copy; git paths hold no NUL), or the list itself when a ref holds one.
   */
  ends: string | string[];
  /** The labels and provenances, each once. */
  names: string[];
  label: Int32Array;
  provenance: Int32Array;
  confidence: Float64Array;
  count: Int32Array;
  /** Edge i's lines are lines[lineStart[i] .. lineStart[i + 1]). */
  lineStart: Int32Array;
  lines: Int32Array;
}

export function packEdges(edges: readonly SymbolEdge[]): PackedEdges {
  const index = new Map<string, number>();
  const names: string[] = [];
  const id = (x: string): number => {
    let i = index.get(x);
    if (i === undefined) index.set(x, (i = names.push(x) - 1));
    return i;
  };
  const n = edges.length;
  let lineCount = 0;
  for (const e of edges) lineCount += e.lines.length;
  const ends = new Array<string>(2 * n);
  const p: PackedEdges = {
    ends: '',
    names,
    label: new Int32Array(n),
    provenance: new Int32Array(n),
    confidence: new Float64Array(n),
    count: new Int32Array(n),
    lineStart: new Int32Array(n + 1),
    lines: new Int32Array(lineCount),
  };
  let l = 0;
  let nul = false;
  edges.forEach((e, i) => {
    if (e.from.includes('\0') || e.to.includes('\0')) nul = true;
    ends[2 * i] = e.from;
    ends[2 * i + 1] = e.to;
    p.label[i] = id(e.label);
    p.provenance[i] = id(e.provenance);
    p.confidence[i] = e.confidence;
    p.count[i] = e.count;
    p.lineStart[i] = l;
    for (const line of e.lines) p.lines[l++] = line;
  });
  p.lineStart[n] = l;
  p.ends = nul ? ends : ends.join('\0');
  return p;
}

/** The buffers a PackedEdges message transfers. */
export function packedBuffers(p: PackedEdges): ArrayBuffer[] {
  return [p.label, p.provenance, p.confidence, p.count, p.lineStart, p.lines].map((a) => a.buffer as ArrayBuffer);
}

export function unpackEdges(p: PackedEdges): SymbolEdge[] {
  const n = p.label.length;
  const out = new Array<SymbolEdge>(n);
  const ends = typeof p.ends !== 'string' ? p.ends : n === 0 ? [] : p.ends.split('\0');
  const names = p.names;
  for (let i = 0; i < n; i++) {
    const lines: number[] = [];
    for (let k = p.lineStart[i]!; k < p.lineStart[i + 1]!; k++) lines.push(p.lines[k]!);
    out[i] = {
      label: names[p.label[i]!] as SymbolEdge['label'],
      from: ends[2 * i]!,
      to: ends[2 * i + 1]!,
      provenance: names[p.provenance[i]!] as SymbolEdge['provenance'],
      confidence: p.confidence[i]!,
      lines,
      count: p.count[i]!,
    };
  }
  return out;
}

type Answer = Exclude<ResolverResponse, { part: number }>;
type Settle = (res: Answer | Error) => void;

/** The process's resolver thread and the jobs waiting for an answer from it. */
class SharedThread {
  readonly worker = new Worker(new URL('./resolve-worker.mjs', import.meta.url));
  readonly waiting = new Map<number, Settle>();
  /** Where the parts of a job's edges go (a run given cuts). */
  readonly partSinks = new Map<number, EdgeParts['onPart']>();
  readonly sinkErrors = new Map<number, string>();
  dead = false;

  constructor() {
    const fail = (err: Error): void => {
      this.dead = true;
      if (shared === this) shared = null;
      for (const settle of this.waiting.values()) settle(err);
      this.waiting.clear();
      this.partSinks.clear();
    };
    this.worker.on('error', (err) => fail(new Error(`symbol resolver thread failed: ${err.message}`)));
    this.worker.on('exit', (code) => fail(new Error(`symbol resolver thread exited with code ${code}`)));
    this.worker.on('message', (res: ResolverResponse) => {
      if ('part' in res) {
        const sink = this.partSinks.get(res.job);
        try {
          sink?.(res.part, unpackEdges(res.edges));
        } catch (err) {
          // The job then fails (its answer says why), rather than the process.
          this.partSinks.delete(res.job);
          this.sinkErrors.set(res.job, err instanceof Error ? err.message : String(err));
        }
        return;
      }
      const settle = this.waiting.get(res.job);
      const sinkError = this.sinkErrors.get(res.job);
      this.waiting.delete(res.job);
      this.partSinks.delete(res.job);
      this.sinkErrors.delete(res.job);
      this.idle();
      settle?.(
        sinkError === undefined ? res : { job: res.job, ok: false, error: `a part's sink failed: ${sinkError}` },
      );
    });
    this.idle();
  }

  /** A job waits for its answer: the thread keeps the process alive until it comes. */
  wait(job: number, settle: Settle, onPart?: EdgeParts['onPart']): void {
    this.waiting.set(job, settle);
    if (onPart) this.partSinks.set(job, onPart);
    this.worker.ref();
  }

  /** Idle, the thread does not keep the process alive (also after the listeners: adding one refs its port). */
  private idle(): void {
    if (this.waiting.size === 0) this.worker.unref();
  }
}

let shared: SharedThread | null = null;
let nextJob = 1;

export class ResolverThread {
  private readonly thread = (shared ??= new SharedThread());
  private readonly job = nextJob++;
  private result: Promise<ResolveOutput> | null = null;
  private ended = false;

  /** Hands the thread one part of the files (a part given again replaces the earlier one). */
  add(part: number, files: SymbolFileJson[]): void {
    if (this.result) throw new Error('resolver thread: files added after the run started');
    if (!this.ended && !this.thread.dead)
      this.thread.worker.postMessage({ t: 'files', job: this.job, part, files } satisfies ResolverRequest);
  }

  /**
   * Resolves the files given so far (once; later calls return the same result). With `parts`, the edges are handed
   * to parts.onPart as the thread finishes each part (resolveSymbolGraph's EdgeParts; a sink that throws fails the
   * job) and the result's `edges` is empty.
   */
  resolve(parts?: EdgeParts): Promise<ResolveOutput> {
    this.result ??= new Promise<ResolveOutput>((resolve, reject) => {
      const settle: Settle = (res) => {
        if (res instanceof Error) reject(res);
        else if (res.ok) resolve({ ...res.output, edges: unpackEdges(res.edges) });
        else reject(new Error(`symbol resolver failed: ${res.error}`));
      };
      if (this.ended) return settle(new Error('resolver thread: the job was closed'));
      if (this.thread.dead) return settle(new Error('symbol resolver thread ended before the run'));
      this.ended = true;
      this.thread.wait(this.job, settle, parts?.onPart);
      this.thread.worker.postMessage({
        t: 'run',
        job: this.job,
        ...(parts ? { cuts: [...parts.cuts] } : {}),
      } satisfies ResolverRequest);
    });
    return this.result;
  }

  /** Drops what the job gave (a run asked for still answers). */
  close(): void {
    if (this.ended) return;
    this.ended = true;
    if (!this.thread.dead) this.thread.worker.postMessage({ t: 'drop', job: this.job } satisfies ResolverRequest);
  }
}

/** resolveSymbolGraph on the resolver thread over files whose facts are JSON. */
export function resolveOnThread(files: SymbolFileJson[]): Promise<ResolveOutput> {
  const job = new ResolverThread();
  job.add(0, files);
  return job.resolve();
}
