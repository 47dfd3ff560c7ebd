/**
 * The SCIP indexers the precise tier runs, and how: one child process per language, in its own process group, with a
 * wall limit and a memory limit (the indexer's own heap flag where it has one, and a watchdog on the group's resident
 * memory that kills it past the limit). Paths come from the environment the stack writes (.stack/env, by
 * scripts/stack/indexers.sh): CKG_SCIP_TYPESCRIPT, CKG_SCIP_PYTHON, CKG_SCIP_GO, CKG_SCIP_JAVA_LIB.
 *
 * What each one executes (docs/precise.md says it for operators):
 * - scip-typescript (TypeScript and JavaScript): the TypeScript compiler inside Node, reading tsconfig/jsconfig and
 *   the sources. Never the project's package manager (no workspace flags) and never its scripts. Without
 *   dependencies installed, types from packages are unknown (their uses are external, not wrong).
 * - scip-python: pyright inside Node; given an environment file (always: an empty one unless dependencies are allowed)
 *   it does not run pip; pyright asks the system's python3 for its search paths. Never repository code.
 * - scip-go: `go list` through golang.org/x/tools/go/packages, with CGO_ENABLED=0 (no C compiler, no pkg-config),
 *   GOTOOLCHAIN=local, GOFLAGS=-mod=mod; GOPROXY=off unless dependencies are allowed (then the Go module proxy
 *   downloads the go.mod's modules into the worker's module cache). Never `go generate`, never test binaries.
 * - scip-java (Java): never the project's build (Maven/Gradle run build plugins, i.e. code the repository names).
 *   Instead the JDK's own javac compiles every .java file of the checkout (module-info.java aside) with the
 *   semanticdb-javac plugin as its only plugin, annotation processors off (-proc:none: the one way javac runs code
 *   from a classpath), nothing on the classpath but the plugin, and type errors tolerated (-XDshould-stop.ifError=FLOW:
 *   a type from a missing dependency is unknown, the rest is still attributed); then scip-java's index-semanticdb turns
 *   the SemanticDB files into the index. Nothing is downloaded.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, relative } from 'node:path';

export type PreciseLanguage = 'typescript' | 'python' | 'go' | 'java';

/** The engine languages each indexer covers. */
export const INDEXER_LANGUAGES: Record<PreciseLanguage, string[]> = {
  typescript: ['typescript', 'javascript', 'tsx'],
  python: ['python'],
  go: ['go'],
  java: ['java'],
};

export const INDEXER_NAMES: Record<PreciseLanguage, string> = {
  typescript: 'scip-typescript',
  python: 'scip-python',
  go: 'scip-go',
  java: 'scip-java',
};

export interface IndexerLimits {
  wallMs: number;
  memoryMb: number;
}

/** Where the installed indexers are (from the environment); a language whose indexer is missing is not offered. */
export function installedIndexers(env: NodeJS.ProcessEnv = process.env): Partial<Record<PreciseLanguage, string>> {
  const out: Partial<Record<PreciseLanguage, string>> = {};
  const ts = env.CKG_SCIP_TYPESCRIPT;
  if (ts && existsSync(ts)) out.typescript = ts;
  const py = env.CKG_SCIP_PYTHON;
  if (py && existsSync(py)) out.python = py;
  const go = env.CKG_SCIP_GO;
  if (go && existsSync(go)) out.go = go;
  // Java: the folder of scip-java's jars with the semanticdb-javac plugin beside them, and a JDK's javac.
  const java = env.CKG_SCIP_JAVA_LIB;
  if (java && existsSync(join(java, SEMANTICDB_PLUGIN)) && javacOf(env)) out.java = java;
  return out;
}

/**
 * Runs scip-typescript's `index` without hover text, each file once, optionally in several processes and resolving
 * only the names the tier reads (scip-typescript.mjs says why).
 */
const TS_RUNNER = fileURLToPath(new URL('./scip-typescript.mjs', import.meta.url));

/** The semanticdb-javac plugin, taken out of scip-java's jar by scripts/stack/indexers.sh. */
export const SEMANTICDB_PLUGIN = 'semanticdb-plugin.jar';

/** The JDK's javac: $JAVA_HOME/bin/javac, else the first on PATH. */
export function javacOf(env: NodeJS.ProcessEnv = process.env): string | null {
  const candidates = [
    ...(env.JAVA_HOME ? [join(env.JAVA_HOME, 'bin', 'javac')] : []),
    ...(env.PATH ?? '').split(':').map((d) => join(d, 'javac')),
  ];
  return candidates.find((c) => c !== 'javac' && existsSync(c)) ?? null;
}

/** The .java files of a checkout (module-info.java and hidden folders aside), relative to it, sorted. */
function javaSources(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name.startsWith('.')) continue;
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && e.name.endsWith('.java') && e.name !== 'module-info.java') out.push(relative(root, p));
    }
  };
  walk(root);
  return out.sort();
}

/**
 * The tsconfig for a checkout that has none, as scip-typescript's `--infer-tsconfig` decides it (`{}` when a .ts/.tsx
 * file exists, else allowJs for the JavaScript files), from a walk of our own: scip-typescript's gives up after 1000
 * entries in walk order, which a `.git` folder can fill before any source (fastapi: no files indexed). Hidden folders
 * and node_modules are not walked.
 */
export function inferredTsconfig(root: string): string {
  let js = false;
  const walk = (dir: string): boolean => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name.startsWith('.') || e.name === 'node_modules') continue;
      if (e.isDirectory()) {
        if (walk(join(dir, e.name))) return true;
      } else if (e.isFile()) {
        if (/\.(ts|tsx)$/.test(e.name)) return true;
        if (/\.(js|jsx)$/.test(e.name)) js = true;
      }
    }
    return false;
  };
  const ts = walk(root);
  return !ts && js ? '{"compilerOptions":{"allowJs":true}}\n' : '{}\n';
}

export interface IndexerRun {
  ok: boolean;
  /** Why it failed: `timeout`, `memory`, `exit N`, `signal S`, `spawn ...`. */
  failure?: string;
  ms: number;
  peakRssMb: number;
  /** The last lines the indexer wrote (stderr and stdout), for the sync issue. */
  tail: string;
}

export interface RunOptions {
  language: PreciseLanguage;
  /** The indexer's executable (installedIndexers). */
  bin: string;
  root: string;
  /** The index file to write. */
  output: string;
  /** Scratch folder of this run (environment files, module cache when none is given). */
  scratch: string;
  limits: IndexerLimits;
  /** May the indexer download the project's dependencies (Go modules)? Off by default. */
  allowDependencies: boolean;
  /** The commit (the index's project version). */
  version: string;
  /** A name for the project (monikers of its own symbols). */
  project: string;
  /**
   * Go: a folder kept between runs (the worker's), holding the module cache and the build cache; without it every run
   * compiles the standard library's export data again (~40 s).
   */
  goCacheDir?: string;
  /**
   * scip-typescript only (activities/precise/scip-typescript.mjs): index with this many processes (default 1), and
   * resolve names only where the precise tier reads them (inside a callable's possible body; declarations everywhere).
   * The precise step sets both; a direct reading of the whole index (tests, the truth harness) sets neither.
   */
  processes?: number;
  usesInCallables?: boolean;
  /**
   * scip-typescript only (activities/precise/incremental.ts): write the index's layout (per project its documents'
   * byte range and its program's repository files) to this file, and skip the projects a JSON array in `skip` names
   * (their documents are taken from an earlier commit's index).
   */
  layout?: string;
  skip?: string;
  signal?: AbortSignal;
}

export interface IndexerStep {
  cmd: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** javac exits 1 on type errors (missing dependencies) and still writes what it attributed: any exit is fine. */
  anyExit?: boolean;
}

/** Java's two steps: javac with the semanticdb plugin over the checkout's sources, then index-semanticdb. */
function javaSteps(o: RunOptions, base: NodeJS.ProcessEnv): IndexerStep[] {
  const javac = javacOf(process.env) ?? 'javac';
  const java = join(javac, '..', 'java');
  const semanticdb = join(o.scratch, 'semanticdb');
  const classes = join(o.scratch, 'classes');
  mkdirSync(semanticdb, { recursive: true });
  mkdirSync(classes, { recursive: true });
  // An argument file: one quoted path a line (javac's @file syntax; backslashes and quotes escaped).
  const argfile = join(o.scratch, 'sources.txt');
  writeFileSync(
    argfile,
    javaSources(o.root)
      .map((f) => `"${f.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`)
      .join('\n') + '\n',
  );
  const heap = `${Math.max(256, Math.floor(o.limits.memoryMb * 0.7))}m`;
  return [
    {
      cmd: javac,
      args: [
        `-J-Xmx${heap}`,
        '-proc:none',
        '-implicit:none',
        '-nowarn',
        '-Xmaxerrs',
        '1',
        '-encoding',
        'UTF-8',
        '-XDshould-stop.ifError=FLOW',
        '-d',
        classes,
        '-classpath',
        join(o.bin, SEMANTICDB_PLUGIN),
        `-Xplugin:semanticdb -sourceroot:${o.root} -targetroot:${semanticdb}`,
        `@${argfile}`,
      ],
      env: base,
      cwd: o.root,
      anyExit: true,
    },
    {
      cmd: java,
      args: [
        `-Xmx${heap}`,
        '-cp',
        `${o.bin}/*`,
        'com.sourcegraph.scip_java.ScipJava',
        'index-semanticdb',
        '--no-emit-inverse-relationships',
        '--output',
        o.output,
        semanticdb,
      ],
      env: base,
      cwd: o.scratch,
    },
  ];
}

/** Builds the command lines of one indexer, run one after the other (exported for the docs' and the tests' sake). */
export function indexerSteps(o: RunOptions): IndexerStep[] {
  const base: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: o.scratch,
    TMPDIR: o.scratch,
    LANG: 'C.UTF-8',
  };
  const heap = `--max-old-space-size=${Math.max(256, Math.floor(o.limits.memoryMb * 0.85))}`;
  if (o.language === 'typescript') {
    // Through our runner (scip-typescript.mjs): the same `index` command without hover text and with each file
    // indexed once, however many tsconfig projects include it; in parts by several processes, names resolved only
    // where the tier reads them, when asked.
    const args = [
      heap,
      TS_RUNNER,
      ...((o.processes ?? 1) > 1 ? ['--processes', String(o.processes)] : []),
      ...(o.usesInCallables ? ['--uses-in-callables'] : []),
      ...(o.layout ? ['--layout', o.layout] : []),
      ...(o.skip ? ['--skip', o.skip] : []),
      realpathSync(o.bin),
      'index',
      '--no-progress-bar',
      '--output',
      o.output,
    ];
    const hasConfig = existsSync(join(o.root, 'tsconfig.json')) || existsSync(join(o.root, 'jsconfig.json'));
    if (!hasConfig) writeFileSync(join(o.root, 'tsconfig.json'), inferredTsconfig(o.root));
    return [{ cmd: process.execPath, args, env: base, cwd: o.root }];
  }
  if (o.language === 'python') {
    const envFile = join(o.scratch, 'python-environment.json');
    writeFileSync(envFile, '[]\n');
    const args = [
      heap,
      o.bin,
      'index',
      '--quiet',
      '--project-name',
      o.project,
      '--project-version',
      o.version,
      '--environment',
      envFile,
      '--cwd',
      o.root,
      '--output',
      o.output,
    ];
    return [{ cmd: process.execPath, args, env: base, cwd: o.root }];
  }
  if (o.language === 'java') return javaSteps(o, base);
  const env: NodeJS.ProcessEnv = {
    ...base,
    GOPATH: join(o.scratch, 'gopath'),
    GOMODCACHE: join(o.goCacheDir ?? o.scratch, 'mod'),
    GOCACHE: join(o.goCacheDir ?? o.scratch, 'build'),
    GOFLAGS: '-mod=mod',
    GOTOOLCHAIN: 'local',
    CGO_ENABLED: '0',
    GOMEMLIMIT: `${Math.max(256, Math.floor(o.limits.memoryMb * 0.85))}MiB`,
    GOPROXY: o.allowDependencies ? (process.env.GOPROXY ?? 'https://proxy.golang.org') : 'off',
    GONOSUMDB: '*',
    GONOSUMCHECK: '1',
    GOSUMDB: 'off',
  };
  return [
    {
      cmd: o.bin,
      args: ['index', '-q', `--module-version=${o.version}`, '-o', o.output, './...'],
      env,
      cwd: o.root,
    },
  ];
}

/** The resident memory of a process group (sum over /proc), in bytes. */
function groupRss(pgid: number): number {
  let total = 0;
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return 0;
  }
  for (const n of names) {
    if (n.charCodeAt(0) < 48 || n.charCodeAt(0) > 57) continue;
    try {
      const stat = readFileSync(`/proc/${n}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // fields after the name: state(0) ppid(1) pgrp(2) ... rss(21)
      if (Number(rest[2]) !== pgid) continue;
      total += Number(rest[21]) * 4096;
    } catch {
      /* gone */
    }
  }
  return total;
}

interface StepOutcome {
  failure?: string;
  peak: number;
}

/** Runs one step in its own process group until `deadline`, killing the group past the memory limit. */
function runStep(step: IndexerStep, o: RunOptions, deadline: number, keep: (b: Buffer) => void): Promise<StepOutcome> {
  return new Promise((resolve) => {
    let failure: string | undefined;
    let peak = 0;
    let child;
    try {
      child = spawn(step.cmd, step.args, {
        cwd: step.cwd,
        env: step.env,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
    } catch (err) {
      resolve({ failure: `spawn ${String(err)}`, peak: 0 });
      return;
    }
    const kill = (why: string) => {
      failure ??= why;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => kill('timeout'), Math.max(0, deadline - performance.now()));
    const watch = setInterval(() => {
      if (child.pid === undefined) return;
      const rss = groupRss(child.pid);
      peak = Math.max(peak, rss);
      if (rss > o.limits.memoryMb * 1024 * 1024) kill('memory');
    }, 250);
    const onAbort = () => kill('cancelled');
    o.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (err) => {
      failure ??= `spawn ${err.message}`;
    });
    child.on('close', (code, sig) => {
      clearTimeout(timer);
      clearInterval(watch);
      o.signal?.removeEventListener('abort', onAbort);
      if (failure === undefined && sig) failure = `signal ${sig}`;
      if (failure === undefined && code !== 0 && !step.anyExit) failure = `exit ${code}`;
      resolve({ ...(failure !== undefined ? { failure } : {}), peak });
    });
  });
}

/** Runs one indexer (its steps in order) within its limits. Never throws for the indexer's own failure. */
export async function runIndexer(o: RunOptions): Promise<IndexerRun> {
  const t0 = performance.now();
  const deadline = t0 + o.limits.wallMs;
  let tail = '';
  const keep = (b: Buffer) => {
    tail = (tail + b.toString()).slice(-4000);
  };
  let failure: string | undefined;
  let peak = 0;
  try {
    for (const step of indexerSteps(o)) {
      const r = await runStep(step, o, deadline, keep);
      peak = Math.max(peak, r.peak);
      failure = r.failure;
      if (failure !== undefined) break;
    }
  } catch (err) {
    failure = `spawn ${String(err)}`;
  }
  if (failure === undefined && !existsSync(o.output)) failure = 'no index written';
  return {
    ok: failure === undefined,
    ...(failure !== undefined ? { failure } : {}),
    ms: performance.now() - t0,
    peakRssMb: Math.round(peak / (1024 * 1024)),
    tail: tail.trim().split('\n').slice(-8).join('\n'),
  };
}
