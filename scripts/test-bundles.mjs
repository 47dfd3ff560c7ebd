// The test files as plain ES modules for scripts/run-tests.mjs: esbuild bundles each test file with the project's own
// modules it imports (packages stay imports), shared code split into chunks, all in one build (~1.5 s for the suite).
// A file then runs as `node --test <bundle>` with no TypeScript loader: tsx's hooks see every module a process loads,
// and each file had two such processes (the node:test runner and the file's own); ~0.3 CPU-s for a unit file, 1-2
// CPU-s for one that loads the pipeline (docs/decisions.md, "Test files run as bundles").
//
// The same program: esbuild applies the same TypeScript transform as tsx (both read tsconfig.json), and every
// module keeps its own `import.meta.url` / `import.meta.dirname` (its source file's), so paths relative to a module,
// createRequire and `new URL('./x.mjs', import.meta.url)` workers resolve as before. Processes the tests start
// (workers, components, the CLI) run as before. Stack traces in a file's output are mapped back to the TypeScript
// sources (mapStacks), so a failure names the test's own file and line.
import { readFileSync, existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { SourceMap } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Each of the project's modules gets constants holding its own import.meta values (esbuild's define points there). */
const META = {
  'import.meta.url': '__ckgMetaUrl',
  'import.meta.dirname': '__ckgMetaDirname',
  'import.meta.filename': '__ckgMetaFilename',
};

/**
 * Modules that start a worker thread from an `.mjs` entry beside them which registers tsx and imports the `.ts` of
 * the same name (Node 20's threads do not inherit the loader). In a bundled test process such a thread runs that
 * `.ts` bundled too (~0.3 CPU-s less per thread start): the module's `import.meta.url` names its place in the bundle
 * folder, where the thread's bundle lies at the entry's path. Only where `new URL('./<entry>.mjs', import.meta.url)`
 * is the module's one use of import.meta; otherwise its threads start through tsx as before.
 */
const THREADS = { 'engine/pool.ts': 'parse-worker', 'engine/symbols/resolve-thread.ts': 'resolve-worker' };

/** The threads' entries to bundle beside the test files (paths relative to the root). */
const threadEntries = () => Object.entries(THREADS).map(([m, entry]) => join(dirname(m), `${entry}.ts`));

function ownImportMeta(root, outdir) {
  return {
    name: 'own-import-meta',
    setup(build) {
      build.onLoad({ filter: /\.(ts|mts|js|mjs)$/ }, async (args) => {
        if (args.path.includes('/node_modules/')) return undefined;
        const text = await readFile(args.path, 'utf8');
        const own = relative(root, args.path);
        const entry = THREADS[own];
        const uses = text.match(/import\.meta/g)?.length ?? 0;
        const threadOnly =
          entry !== undefined && uses === 1 && text.includes(`new URL('./${entry}.mjs', import.meta.url)`);
        const url = pathToFileURL(threadOnly ? join(outdir, own) : args.path).href;
        // On the module's first line, so the source map's lines stay the file's own.
        const head =
          `const __ckgMetaUrl = ${JSON.stringify(url)}, ` +
          `__ckgMetaDirname = ${JSON.stringify(dirname(args.path))}, ` +
          `__ckgMetaFilename = ${JSON.stringify(args.path)};`;
        return { contents: head + text, loader: /\.m?ts$/.test(args.path) ? 'ts' : 'js' };
      });
    },
  };
}

/** A bare package name or a Node built-in: what the bundle may leave to Node's own resolution. */
const isPackage = (path) => !/^(\.|\/|file:)/.test(path) && !/\.[mc]?ts$/.test(path);

/**
 * Bundles `files` (paths relative to `root`) into `outdir` (inside `root`, so packages resolve from root's
 * node_modules). Returns a map from each file to its bundle, or throws when esbuild fails or a bundle would import
 * one of the project's files at run time (which needs tsx): the caller then runs the files through tsx.
 */
export async function bundleTests(root, files, outdir) {
  const { build } = await import('esbuild');
  const result = await build({
    absWorkingDir: root,
    entryPoints: [...files, ...threadEntries()].map((f) => join(root, f)),
    outbase: root,
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: ['node20'],
    sourcemap: 'linked',
    define: META,
    plugins: [ownImportMeta(root, outdir)],
    metafile: true,
    logLevel: 'silent',
  });
  const left = new Set();
  for (const out of Object.values(result.metafile.outputs)) {
    for (const i of out.imports) if (i.external && !isPackage(i.path)) left.add(i.path);
  }
  if (left.size > 0) throw new Error(`left as run-time imports: ${[...left].join(', ')}`);
  const map = new Map();
  for (const f of files) {
    const out = join(outdir, f.replace(/\.ts$/, '.mjs'));
    if (!existsSync(out)) throw new Error(`no bundle for ${f}`);
    map.set(f, out);
  }
  return map;
}

/**
 * `text` with every position in a bundle under `outdir` (file URL or path, `:line:column`) replaced by the position
 * in the TypeScript source it came from, relative to `root`; a position without a mapping stays as it is.
 */
export function mapStacks(text, root, outdir) {
  const maps = new Map();
  const mapOf = (file) => {
    if (!maps.has(file)) {
      try {
        maps.set(file, new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8'))));
      } catch {
        maps.set(file, undefined);
      }
    }
    return maps.get(file);
  };
  const escape = (p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // Node writes the file's URL or path; the test reporter writes it relative to the working directory.
  const dirs = `${escape(outdir)}|${escape(relative(root, outdir))}`;
  const at = new RegExp(`(?:file://)?((?:${dirs})/[^\\s:()]+\\.mjs):(\\d+):(\\d+)`, 'g');
  return text.replace(at, (whole, path, line, column) => {
    const file = resolve(root, path);
    const entry = mapOf(file)?.findEntry(Number(line) - 1, Number(column) - 1);
    if (!entry?.originalSource) return whole;
    const source = entry.originalSource.startsWith('file:')
      ? fileURLToPath(entry.originalSource)
      : resolve(dirname(file), entry.originalSource);
    return `${relative(root, source)}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  });
}
