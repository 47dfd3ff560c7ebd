/**
 * Side by side, one run: the same repository synced by this service (through the API of a running stack, without
 * embeddings) and indexed by GitNexus (`gitnexus analyze`, embeddings off by default; the closest open-source peer), then the
 * ratio of their wall times. GitNexus is installed into a cache folder outside the checkout on first use
 * (`npm i gitnexus` without install scripts, then its graph database's prebuilt binary put in place); nothing of it enters
 * the project's dependencies.
 *
 *   set -a; source .stack/env; set +a
 *   node --import tsx bench/vs-gitnexus.ts [--src DIR] [--timeout-min 20]
 *
 * Default source: the Go standard library ($(go env GOROOT)/src). Each tool gets its own git copy of the tree (GitNexus
 * writes .gitnexus/ and AGENTS.md into the repository it analyses). A tool that has not finished within the timeout
 * is stopped and reported as "> timeout", and the ratio as a lower bound.
 */
import { execFileSync, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { freshSnapshotOf } from './support/snapshot.ts';
import { installGitnexus } from './support/gitnexus.ts';
import { call, graphUrl, syncToEnd } from './support/api.ts';

const args = process.argv.slice(2);
const opt = (name: string, dflt: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1]! : dflt;
};
const src = opt('--src', join(execFileSync('go', ['env', 'GOROOT'], { encoding: 'utf8' }).trim(), 'src'));
const timeoutMs = Number(opt('--timeout-min', '20')) * 60_000;

/** Our sync through the API: source upsert (embeddings off), POST /api/syncs, poll until final. */
async function syncHere(repo: string): Promise<{ ms: number; detail: string }> {
  const source = await call<{ id: string }>('POST', `${graphUrl}/api/sources`, {
    source_type: 'github',
    owner: 'bench',
    name: `vs-gitnexus-${Date.now()}`,
    url: repo,
    default_branch: 'main',
  });
  await call('PATCH', `${graphUrl}/api/sources/${source.id}`, { config: { embeddings: false } });
  const { run: cur, ms } = await syncToEnd(source.id, timeoutMs);
  await call('DELETE', `${graphUrl}/api/sources/${source.id}`);
  if (cur.status !== 'completed') throw new Error(`our sync ended ${cur.status}: ${cur.error ?? ''}`);
  return {
    ms,
    detail: `files ${cur.stats?.files}, symbols ${cur.stats?.symbols}, depends_on ${cur.stats?.edges?.depends_on}, defines ${cur.stats?.edges?.defines}`,
  };
}

/** GitNexus's analyze as a child process; its wall time, or null when it hit the timeout. */
function gitnexus(bin: string, repo: string): Promise<{ ms: number | null; tail: string }> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(bin, ['analyze', repo, '--skip-agents-md'], {
      cwd: repo,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CI: '1' },
      detached: true,
    });
    let out = '';
    const keep = (b: Buffer) => (out = (out + b.toString()).slice(-2000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const ms = performance.now() - t0;
      resolve({ ms: code === 0 ? ms : null, tail: out.trim().split('\n').slice(-3).join(' | ') });
    });
  });
}

async function main(): Promise<void> {
  const bin = installGitnexus();
  const ours = freshSnapshotOf(src, 'ckg-vs-gitnexus-');
  const theirs = freshSnapshotOf(src, 'ckg-vs-gitnexus-');
  const files =
    execFileSync('git', ['-C', ours, 'ls-files'], { encoding: 'utf8', maxBuffer: 1 << 28 }).split('\n').length - 1;
  console.log(`repository: ${src} (${files.toLocaleString('en-US')} tracked files); load ${loadavg()[0]!.toFixed(1)}`);
  try {
    const a = await syncHere(ours);
    console.log(`this service: ${(a.ms / 1000).toFixed(1)} s (${a.detail})`);
    const b = await gitnexus(bin, theirs);
    const limit = `${(timeoutMs / 60_000).toFixed(0)} min`;
    console.log(
      b.ms === null
        ? `GitNexus: did not finish within ${limit} (${b.tail})`
        : `GitNexus: ${(b.ms / 1000).toFixed(1)} s (${b.tail})`,
    );
    const ratio = (b.ms ?? timeoutMs) / a.ms;
    console.log(
      `ratio GitNexus / this service: ${b.ms === null ? '>' : ''}${ratio.toFixed(1)}× (load ${loadavg()[0]!.toFixed(1)})`,
    );
  } finally {
    rmSync(ours, { recursive: true, force: true });
    rmSync(theirs, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
