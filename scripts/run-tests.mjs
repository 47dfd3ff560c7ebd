#!/usr/bin/env node
// Runs the project's tests: every test file in a node:test process of its own (bundled first, without tsx:
// scripts/test-bundles.mjs), TEST_CONCURRENCY files at once, the slowest files first (so the run does not end on one
// long file while a core idles), each file's output printed whole when it ends, then the totals, the failures and the
// slowest files.
//
// Files are independent: each makes its own database (test/support/db.ts), task queues, schedule prefixes and ports.
// Many of them spend most of their time waiting (on Temporal's timers, schedules, child processes, heartbeats), so
// four files at once on this 2-core machine finish sooner than three (see docs/benchmarks.md, "Test suite").
//
//   node scripts/run-tests.mjs [--checks] [--save-durations] [filter ...]
//
// filter: run only the test files whose path contains one of the substrings. --checks: lint, the import-structure check
// (scripts/check-imports.ts), the production functions' length (scripts/long-functions.ts: none over 120 lines) and
// the typechecks run as jobs of the same pool (what `npm test` does with no filter). --save-durations: write this run's per-file times into
// test/durations.json (the order a fresh checkout starts from); every run writes them into .stack/ for the next run.
// TEST_FILE_TIMEOUT_SECONDS (900) ends a file that hangs. The workflow code is bundled once for the run and every
// worker the tests start uses that bundle (TEMPORAL_WORKFLOW_BUNDLE) instead of bundling it again (~2.5 CPU-s each).
// The typechecks are incremental (their state in .stack/), so a second run checks only what changed.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
import { bundleTests, mapStacks } from './test-bundles.mjs';

const root = new URL('..', import.meta.url).pathname;
const COMMITTED_DURATIONS = join(root, 'test', 'durations.json');
const LOCAL_DURATIONS = join(root, '.stack', 'test-durations.json');
const bin = (name) => join(root, 'node_modules', '.bin', name);

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'fixtures' || name.startsWith('.')) continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...walk(full));
    else if (name.endsWith('.test.ts')) out.push(relative(root, full));
  }
  return out;
}

/** A durations file: per job `{ ms, cpu }` (wall and CPU time of its processes, ms); a plain number is the wall. */
function readDurations(path) {
  try {
    const raw = JSON.parse(readFileSync(path, 'utf8'));
    return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, typeof v === 'number' ? { ms: v } : v]));
  } catch {
    return {};
  }
}

const args = process.argv.slice(2);
const checks = args.includes('--checks');
const saveDurations = args.includes('--save-durations');
const filters = args.filter((a) => !a.startsWith('--'));
const files = walk(join(root, 'test'))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
if (files.length === 0) {
  console.error(`no test files match ${filters.join(' ') || '(all)'}`);
  process.exit(1);
}
const concurrency = Math.max(1, Number(process.env.TEST_CONCURRENCY ?? '4'));
/** Cores' worth of the jobs' own CPU at once (the servers they talk to take the rest). */
const cpuBudget = Number(process.env.TEST_CPU_BUDGET ?? String(availableParallelism() * 0.8));
/** The CPU share assumed for a job that has no figures yet. */
const DEFAULT_SHARE = 0.5;
const fileTimeoutMs = Number(process.env.TEST_FILE_TIMEOUT_SECONDS ?? '900') * 1000;

/** @type {Array<{ name: string, command: string, args: string[], test: boolean }>} */
const jobs = files.map((f) => ({
  name: f,
  command: process.execPath,
  args: ['--import', 'tsx', '--test', '--test-reporter=spec', f],
  test: true,
}));
if (checks) {
  jobs.push(
    { name: 'lint', command: bin('eslint'), args: ['.'], test: false },
    { name: 'imports', command: process.execPath, args: ['--import', 'tsx', 'scripts/check-imports.ts'], test: false },
    {
      name: 'long functions',
      command: process.execPath,
      args: ['--import', 'tsx', 'scripts/long-functions.ts'],
      test: false,
    },
    { name: 'typecheck', command: bin('tsc'), args: typecheck('tsconfig.json', 'tsc'), test: false },
    { name: 'typecheck web', command: bin('tsc'), args: typecheck('web/tsconfig.json', 'tsc-web'), test: false },
  );
}

function typecheck(project, state) {
  return ['--noEmit', '-p', project, '--incremental', '--tsBuildInfoFile', join('.stack', `${state}.tsbuildinfo`)];
}

mkdirSync(join(root, '.stack'), { recursive: true });
let bundle;
if (!process.env.TEMPORAL_WORKFLOW_BUNDLE) {
  bundle = join(root, '.stack', `workflow-bundle-${process.pid}.js`);
  const built = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/bundle-workflows.ts', bundle], {
    cwd: root,
    encoding: 'utf8',
  });
  if (built.status !== 0) {
    console.error(`bundling the workflows failed:\n${built.stdout}${built.stderr}`);
    process.exit(1);
  }
  process.env.TEMPORAL_WORKFLOW_BUNDLE = bundle;
}
// The test files as plain ES modules (scripts/test-bundles.mjs): no TypeScript loader in the test processes. If the
// build fails, the files run through tsx as they are.
const testBundles = join(root, '.stack', `test-bundles-${process.pid}`);
try {
  const bundles = await bundleTests(root, files, testBundles);
  for (const job of jobs) {
    if (job.test) job.args = ['--test', '--test-reporter=spec', bundles.get(job.name)];
  }
} catch (err) {
  console.log(`[test] bundling the test files failed, running them through tsx: ${err?.message ?? err}`);
  rmSync(testBundles, { recursive: true, force: true });
}
const known = { ...readDurations(COMMITTED_DURATIONS), ...readDurations(LOCAL_DURATIONS) };
const median = (() => {
  const v = Object.values(known)
    .map((d) => d.ms)
    .sort((a, b) => a - b);
  return v.length ? v[Math.floor(v.length / 2)] : 0;
})();
const wallOf = (job) => known[job.name]?.ms ?? median;
jobs.sort((a, b) => wallOf(b) - wallOf(a) || a.name.localeCompare(b.name));

const totals = { tests: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
/** @type {Array<{ name: string, ms: number, cpu?: number, ok: boolean, why?: string, failures?: string }>} */
const done = [];
const running = new Set();
const started = Date.now();

// Each job runs under GNU time where the machine has it, for its processes' CPU time (user + system, the processes
// it started and waited for included; not the servers it talks to).
const TIME = '/usr/bin/time';
const timed = existsSync(TIME);
/** Numbers the jobs' CPU files (.stack/cpu-<runner pid>-<n>.txt). */
let jobSeq = 0;

function runJob(job) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const cpuFile = join(root, '.stack', `cpu-${process.pid}-${jobSeq++}.txt`);
    const [command, args] = timed
      ? [TIME, ['--quiet', '-f', '%U %S', '-o', cpuFile, job.command, ...job.args]]
      : [job.command, job.args];
    const child = spawn(command, args, {
      cwd: root,
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group: a timeout or ^C ends whatever the file started
    });
    running.add(child);
    const chunks = [];
    child.stdout.on('data', (d) => chunks.push(d));
    child.stderr.on('data', (d) => chunks.push(d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, fileTimeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child);
      const ms = Date.now() - t0;
      // The file's own totals are summed below: its output keeps the test names and failures.
      const output = mapStacks(Buffer.concat(chunks).toString('utf8'), root, testBundles).replace(
        /^ℹ (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) [\d.]+\n?/gm,
        '',
      );
      let ok = code === 0;
      let why = timedOut ? `timed out after ${fileTimeoutMs / 1000} s` : signal ? `ended by ${signal}` : undefined;
      if (job.test) {
        const counts = {};
        for (const m of Buffer.concat(chunks)
          .toString('utf8')
          .matchAll(/^ℹ (tests|pass|fail|cancelled|skipped|todo) (\d+)$/gm))
          counts[m[1]] = Number(m[2]);
        if (counts.tests === undefined) {
          ok = false;
          why ??= `no test summary (exit ${code})`;
        }
        for (const k of Object.keys(totals)) totals[k] += counts[k] ?? 0;
        if ((counts.skipped ?? 0) > 0 || (counts.todo ?? 0) > 0) {
          ok = false;
          why ??= 'skipped or todo tests';
        }
      } else if (!ok) why ??= `exit ${code}`;
      const cpu = cpuOf(cpuFile);
      const took = `${(ms / 1000).toFixed(1)} s${cpu === undefined ? '' : `, CPU ${(cpu / 1000).toFixed(1)} s`}`;
      const head = `${ok ? '✔' : '✖'} ${job.name} (${took})${why ? ': ' + why : ''}`;
      process.stdout.write(`\n${head}\n${output.trimEnd() ? output.trimEnd() + '\n' : ''}`);
      done.push({ name: job.name, ms, cpu, ok, why, failures: ok ? undefined : failureText(output) });
      resolve();
    });
  });
}

/**
 * What a failed file said of its failures, for the end of the run (where a CI log's tail shows it): the spec
 * reporter's "failing tests" section (each test's name, error and the first lines of its stack), or else the output's
 * last lines; at most FAILURE_LINES lines, Node's internal stack frames left out.
 */
const FAILURE_LINES = 80;
function failureText(output) {
  const lines = output.trimEnd().split('\n');
  const at = lines.findIndex((l) => l.startsWith('✖ failing tests:'));
  const picked = at >= 0 ? lines.slice(at + 1) : lines.slice(-FAILURE_LINES);
  // Node's own frames say nothing of the test.
  const useful = picked.filter((l) => l.trim() !== '' && !/^\s+at (.*\()?node:/.test(l));
  const kept = useful.slice(0, FAILURE_LINES);
  return (kept.length < useful.length ? [...kept, '    …'] : kept).join('\n');
}

/** The CPU milliseconds GNU time wrote for a job (its last line: "user system" in seconds), then the file removed. */
function cpuOf(file) {
  if (!existsSync(file)) return undefined;
  const last = readFileSync(file, 'utf8').trim().split('\n').at(-1) ?? '';
  rmSync(file, { force: true });
  const [user, system] = last.split(' ').map(Number);
  return Number.isFinite(user) && Number.isFinite(system) ? Math.round((user + system) * 1000) : undefined;
}

function killGroup(child) {
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const child of running) killGroup(child);
    if (bundle) rmSync(bundle, { force: true });
    rmSync(testBundles, { recursive: true, force: true });
    process.exit(130);
  });
}

// Admission: at most `concurrency` jobs at once, and a new one only while the CPU share of those running (their CPU
// time over their wall time in the last run) leaves room for its own within `cpuBudget` cores; the first job in the
// queue's order that fits starts (one always runs). So files that mostly wait (on Temporal's timers and schedules)
// run beside busy ones (lint, Keycloak's boot) without pushing the machine past its cores.
const shareOf = (job) => {
  const d = known[job.name];
  return d?.cpu !== undefined && d.ms > 0 ? Math.min(1, d.cpu / d.ms) : DEFAULT_SHARE;
};
const queue = [...jobs];
const active = new Map();
await new Promise((resolveAll) => {
  const pump = () => {
    while (queue.length > 0 && active.size < concurrency) {
      const load = [...active.values()].reduce((a, x) => a + x, 0);
      const i = active.size === 0 ? 0 : queue.findIndex((j) => load + shareOf(j) <= cpuBudget);
      if (i < 0) break;
      const [job] = queue.splice(i, 1);
      active.set(job, shareOf(job));
      void runJob(job).then(() => {
        active.delete(job);
        pump();
      });
    }
    if (queue.length === 0 && active.size === 0) resolveAll();
  };
  pump();
});

const wall = (Date.now() - started) / 1000;
if (bundle) rmSync(bundle, { force: true });
rmSync(testBundles, { recursive: true, force: true });
const durations = Object.fromEntries(
  done.filter((d) => d.ok).map((d) => [d.name, d.cpu === undefined ? { ms: d.ms } : { ms: d.ms, cpu: d.cpu }]),
);
writeFileSync(LOCAL_DURATIONS, JSON.stringify({ ...readDurations(LOCAL_DURATIONS), ...durations }, null, 1) + '\n');
if (saveDurations && existsSync(join(root, 'test'))) {
  const merged = { ...readDurations(COMMITTED_DURATIONS), ...durations };
  const sorted = Object.fromEntries(
    Object.keys(merged)
      .sort()
      .map((k) => [k, merged[k]]),
  );
  writeFileSync(COMMITTED_DURATIONS, JSON.stringify(sorted, null, 1) + '\n');
}

const failed = done.filter((d) => !d.ok);
const slowest = [...done].sort((a, b) => b.ms - a.ms).slice(0, 8);
console.log(
  `\nℹ files ${files.length}, jobs ${done.length}, concurrency ${concurrency}, CPU budget ${cpuBudget}, wall ${wall.toFixed(1)} s`,
);
for (const [k, v] of Object.entries(totals)) console.log(`ℹ ${k} ${v}`);
const cpuMs = done.reduce((a, d) => a + (d.cpu ?? 0), 0);
const cpuText = (d) => (d.cpu === undefined ? '' : ` (CPU ${(d.cpu / 1000).toFixed(0)} s)`);
console.log(`ℹ slowest: ${slowest.map((d) => `${d.name} ${(d.ms / 1000).toFixed(0)} s${cpuText(d)}`).join(', ')}`);
if (timed) {
  const hungriest = [...done].sort((a, b) => (b.cpu ?? 0) - (a.cpu ?? 0)).slice(0, 8);
  console.log(
    `ℹ CPU of the jobs' processes ${(cpuMs / 1000).toFixed(0)} s (servers not counted); most: ${hungriest
      .map((d) => `${d.name} ${((d.cpu ?? 0) / 1000).toFixed(0)} s`)
      .join(', ')}`,
  );
}
if (failed.length > 0) {
  console.log(`\n✖ failed (${failed.length}):`);
  for (const d of failed) console.log(`  ${d.name}${d.why ? ': ' + d.why : ''}`);
  // Again with what each said, last: a log cut to its tail still shows why.
  for (const d of failed) if (d.failures) console.log(`\n✖ ${d.name}:\n${d.failures}`);
}
process.exit(failed.length === 0 ? 0 : 1);
