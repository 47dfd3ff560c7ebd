import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { errorText } from './error-text.ts';
import type {
  AnalyzeOptions,
  DiscoveredFile,
  Engine,
  EngineIssue,
  FileAnalysis,
  ParseOptions,
  ReusableFile,
  ReusedFile,
  Tree,
  TreeOptions,
} from './types.ts';
import type { FileRequest, FileResult } from './analyze-file.ts';
import { DEFAULT_MAX_FILE_BYTES, analyzeFile } from './analyze-file.ts';
import { discover } from './discover.ts';
import { ParsePool } from './pool.ts';
import { buildRepoIndex } from './resolve/repo-index.ts';
import type { RepoIndex } from './resolve/repo-index.ts';
import { resolveImports } from './resolve-imports.ts';

export interface EngineOptions {
  /** Worker threads (default: the number of cores). */
  threads?: number;
}

function checkThreads(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}

function finish(result: FileResult, repo: RepoIndex): FileAnalysis {
  const { imports, reused: _reused, ...rest } = result;
  try {
    const { dependencies, external } = resolveImports(result.language, result.file_path, imports, repo);
    return { ...rest, imports, dependencies, external_imports: external };
  } catch (err) {
    rest.issues.push({
      level: 'error',
      phase: 'graphing',
      code: 'resolve_failed',
      message: `import resolution failed: ${errorText(err)}`,
      file_path: result.file_path,
    });
    return { ...rest, imports, dependencies: [], external_imports: imports.length };
  }
}

/** A reused file's stored imports, resolved against this tree (resolution depends on the whole tree). */
function finishReused(path: string, hash: string, known: ReusableFile, repo: RepoIndex): ReusedFile {
  try {
    const { dependencies, external } = resolveImports(known.language, path, known.imports, repo);
    return { file_path: path, content_hash: hash, dependencies, external_imports: external, issues: [] };
  } catch (err) {
    const issue: EngineIssue = {
      level: 'error',
      phase: 'graphing',
      code: 'resolve_failed',
      message: `import resolution failed: ${errorText(err)}`,
      file_path: path,
    };
    return {
      file_path: path,
      content_hash: hash,
      dependencies: [],
      external_imports: known.imports.length,
      issues: [issue],
    };
  }
}

/** Discovery and the repository index of a checkout (the calling thread); problems with config files are issues. */
function openTreeAt(root: string, opts: TreeOptions): Tree {
  const issues: EngineIssue[] = [];
  const onIssue = (i: EngineIssue) => {
    issues.push(i);
    opts.onIssue?.(i);
  };
  const files = discover(root, opts.includePaths ?? [], onIssue);
  const problems: Array<{ path: string; message: string }> = [];
  const repo = buildRepoIndex(
    root,
    files.map((f) => f.path),
    problems,
  );
  for (const p of problems) {
    onIssue({ level: 'warning', phase: 'parsing', code: 'unreadable_config', message: p.message, file_path: p.path });
  }
  return { root, files, issues, repo };
}

/**
 * The tree after a commit that only edited `changed` contents: the same files with the changed ones' sizes read
 * again; null when a config file changed or a file is gone (the caller opens the tree afresh).
 */
function refreshedTree(tree: Tree, changed: ReadonlySet<string>): Tree | null {
  const repo = tree.repo as RepoIndex;
  for (const p of changed) if (repo.configFiles.has(p)) return null;
  const files: DiscoveredFile[] = [];
  for (const f of tree.files) {
    // A symlinked file is recorded with its target's path and size; its target may be one of the changed files.
    if (!changed.has(f.path) && f.absolute.endsWith(`/${f.path}`)) {
      files.push(f);
      continue;
    }
    try {
      files.push({ ...f, size: statSync(f.absolute).size });
    } catch {
      return null;
    }
  }
  return { root: tree.root, files, issues: tree.issues, repo };
}

/**
 * The parse-and-chunk engine: discovery and the repository index on the calling thread (`openTree`, once per
 * checkout), per-file analysis (read, hash, decode, classify,
 * parse, extract, chunk) in a worker pool, import resolution against the whole tree back on the calling thread.
 */
export function createEngine(options: EngineOptions = {}): Engine {
  const defaultThreads = checkThreads(options.threads, 'threads') ?? Math.max(1, availableParallelism());
  const pools = new Map<number, ParsePool>();
  let closed = false;
  const poolFor = (n: number): ParsePool => {
    let pool = pools.get(n);
    if (!pool) pools.set(n, (pool = new ParsePool(n)));
    return pool;
  };

  function openTree(root: string, opts: TreeOptions = {}): Tree {
    if (closed) throw new Error('engine is closed');
    return openTreeAt(root, opts);
  }

  function refreshTree(tree: Tree, changed: ReadonlySet<string>): Tree | null {
    if (closed) throw new Error('engine is closed');
    return refreshedTree(tree, changed);
  }

  async function* analyzeFiles(
    tree: Tree,
    files: readonly DiscoveredFile[],
    opts: ParseOptions = {},
  ): AsyncGenerator<FileAnalysis> {
    if (closed) throw new Error('engine is closed');
    const threads = checkThreads(opts.threads, 'threads') ?? defaultThreads;
    const maxFileBytes = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    if (!Number.isFinite(maxFileBytes) || maxFileBytes < 0)
      throw new RangeError(`maxFileBytes must be a non-negative number, got ${maxFileBytes}`);
    const repo = tree.repo as RepoIndex;
    const pool = poolFor(threads);
    const window = threads * 8;
    const done: FileAnalysis[] = [];
    let wake: (() => void) | null = null;
    let next = 0;
    let pending = 0;

    const start = (): void => {
      while (pending < window && next < files.length) {
        const f = files[next++]!;
        const known = opts.reuse?.get(f.path);
        if (known && known.content_hash !== '' && opts.onReused && opts.unchanged?.has(f.path)) {
          opts.onReused(finishReused(f.path, known.content_hash, known, repo));
          continue;
        }
        const req: FileRequest = {
          path: f.path,
          absolute: f.absolute,
          size: f.size,
          maxFileBytes,
          ...(known && opts.onReused ? { knownHash: known.content_hash } : {}),
          ...(opts.symbolFacts === false ? { symbolFacts: false } : {}),
          ...(opts.symbolFactsJson ? { factsJson: true } : {}),
        };
        pending++;
        void pool.run(req).then(async (res) => {
          let result: FileResult;
          if (res instanceof Error) {
            const issues: EngineIssue[] = [
              {
                level: 'error',
                phase: 'parsing',
                code: 'worker_failed',
                message: `analysis failed, chunked by lines: ${res.message}`,
                file_path: f.path,
              },
            ];
            result = await analyzeFile(req, { parse: false, issues });
          } else result = res;
          if (result.reused && known && opts.onReused)
            opts.onReused(finishReused(f.path, result.content_hash, known, repo));
          else done.push(finish(result, repo));
          pending--;
          wake?.();
        });
      }
    };

    start();
    while (pending > 0 || done.length > 0) {
      if (done.length === 0) {
        await new Promise<void>((r) => (wake = r));
        wake = null;
      }
      const batch = done.splice(0);
      start();
      for (const a of batch) yield a;
    }
  }

  async function* analyzeTree(root: string, opts: AnalyzeOptions = {}): AsyncGenerator<FileAnalysis> {
    const tree = openTree(root, opts);
    yield* analyzeFiles(tree, tree.files, opts);
  }

  return {
    openTree,
    refreshTree,
    analyzeFiles,
    analyzeTree,
    async close() {
      closed = true;
      await Promise.all([...pools.values()].map((p) => p.close()));
      pools.clear();
    },
  };
}
