/** The worker as a child process (`node --import tsx temporal/worker-main.ts`), for crash tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TEST_URL_ENV } from './env.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface WorkerProcess {
  child: ChildProcess;
  output: string[];
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts the worker (extra node flags first, e.g. --cpu-prof) and resolves once it logged worker_started. */
export function startWorkerProcess(
  env: Record<string, string>,
  timeoutMs = 180_000,
  nodeArgs: string[] = [],
): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'temporal/worker-main.ts'], {
    cwd: ROOT,
    // No precise worker in these tests: the precise tier is tested in test/pipeline/precise.test.ts.
    env: { ...process.env, LOG_LEVEL: 'info', METRICS_PORT: '0', SYNC_PRECISE: 'false', ...TEST_URL_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const wp: WorkerProcess = {
    child,
    output,
    async kill(signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void wp.kill();
      reject(new Error(`worker did not start within ${timeoutMs} ms:\n${output.join('')}`));
    }, timeoutMs);
    const onData = (d: Buffer) => {
      const s = d.toString('utf8');
      output.push(s);
      if (s.includes('"worker_started"')) {
        clearTimeout(timer);
        resolve(wp);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d: Buffer) => output.push(d.toString('utf8')));
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`worker exited (${code ?? signal}) before it started:\n${output.join('').slice(-3000)}`));
    });
  });
}
