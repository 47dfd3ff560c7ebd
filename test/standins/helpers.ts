/** Helpers shared by the stand-in tests: JSON over HTTP, vector maths, and running an entry point as a process. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { testLogger } from '../support/log.ts';

/** The stand-ins' own log lines (faults changed, requests) stay out of the suite's output. */
export const quietLog = testLogger('standin');

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

export interface JsonResponse {
  status: number;
  headers: Headers;
  body: unknown;
}

export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<JsonResponse> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

export function dot(a: readonly number[], b: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] ?? 0) * (b[i] ?? 0);
  return s;
}

export function norm(a: readonly number[]): number {
  return Math.sqrt(dot(a, a));
}

export interface RunningProcess {
  child: ChildProcess;
  /** Parsed JSON log lines seen so far on stdout. */
  lines: Record<string, unknown>[];
  stderr: () => string;
  /** Resolves with the first log line whose `event` equals `event`. */
  waitFor(event: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
  exited: Promise<number | null>;
}

/** Starts `node --import tsx <entry> ...args` in the repository root with extra environment variables. */
export function runEntry(entry: string, env: Record<string, string>, args: string[] = []): RunningProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  const waiters: { event: string; resolve: (l: Record<string, unknown>) => void }[] = [];
  let err = '';
  let buffered = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const raw = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        line = { event: '(not json)', raw };
      }
      lines.push(line);
      for (const w of waiters.filter((x) => x.event === line.event)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return {
    child,
    lines,
    stderr: () => err,
    exited,
    waitFor(event, timeoutMs = 15000) {
      const seen = lines.find((l) => l.event === event);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(`no ${event} line within ${timeoutMs} ms; stdout: ${JSON.stringify(lines)}; stderr: ${err}`),
            ),
          timeoutMs,
        );
        waiters.push({
          event,
          resolve: (l) => {
            clearTimeout(timer);
            resolve(l);
          },
        });
        void exited.then((code) => {
          clearTimeout(timer);
          reject(
            new Error(`process exited (${code}) before ${event}; stdout: ${JSON.stringify(lines)}; stderr: ${err}`),
          );
        });
      });
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
