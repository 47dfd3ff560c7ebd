/**
 * Runs the precise indexer of one truth repository and returns its SCIP index (bench/truth-symbols/truth.ts).
 * - scip-typescript, scip-python, scip-go: as the precise tier runs them (activities/precise/indexers.ts runIndexer).
 *   Python: a `pyrightconfig.json` naming the repository's package folders (`extraPaths`) is written first where the
 *   spec gives them, so that tests and examples importing the project resolve to its sources, as after
 *   `pip install -e .` (without it scip-python files them as an uninstalled external package).
 * - scip-java: the SemanticDB javac plugin shipped inside scip-java's jar compiles the spec's source folders (class
 *   path: the annotation jars scip-java brings; errors in unresolved imports do not stop SemanticDB: javac stops after
 *   flow analysis), then `scip-java index-semanticdb` turns the SemanticDB files into an index. No build tool and
 *   nothing of the repository runs.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { installedIndexers, runIndexer } from '../../activities/precise/indexers.ts';
import { readScipIndex, type ScipIndex } from '../../engine/precise/scip.ts';
import type { RepoSpec } from './repos.ts';

const cacheDir = process.env.CKG_CACHE_DIR ?? join(homedir(), '.cache', 'ckg');

export interface IndexerResult {
  index: ScipIndex;
  ms: number;
  peakRssMb: number;
}

export async function runTruthIndexer(spec: RepoSpec, root: string, scratch: string): Promise<IndexerResult> {
  if (spec.indexer === 'java') return runJava(spec, root, scratch);
  const bin = installedIndexers()[spec.indexer];
  if (!bin) throw new Error(`indexer ${spec.indexer} is not installed (scripts/stack/indexers.sh; source .stack/env)`);
  // A JavaScript repository is indexed as JavaScript: its own tsconfig.json/jsconfig.json (where there is one, it
  // serves the type declarations only, and scip-typescript reads no jsconfig.json) is set aside for a tsconfig with
  // allowJs over every JavaScript file (scip-typescript's --infer-tsconfig gives `{}` as soon as one .ts file exists).
  const hidden: string[] = [];
  if (spec.language === 'javascript') {
    for (const f of ['tsconfig.json', 'jsconfig.json'])
      if (existsSync(join(root, f))) {
        renameSync(join(root, f), join(scratch, f));
        hidden.push(f);
      }
    writeFileSync(
      join(root, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          allowJs: true,
          checkJs: false,
          noEmit: true,
          target: 'es2022',
          module: 'esnext',
          moduleResolution: 'node',
          jsx: 'preserve',
        },
        include: ['**/*.js', '**/*.mjs', '**/*.cjs', '**/*.jsx'],
        exclude: ['node_modules', 'dist'],
      }) + '\n',
    );
  }
  if (spec.pythonPaths)
    writeFileSync(join(root, 'pyrightconfig.json'), JSON.stringify({ extraPaths: spec.pythonPaths }) + '\n');
  const output = join(scratch, 'index.scip');
  const run = await runIndexer({
    language: spec.indexer,
    bin,
    root,
    output,
    scratch,
    limits: { wallMs: 30 * 60_000, memoryMb: 8192 },
    // Go modules come from the module proxy (the go.mod's own requirements), as `go build` would fetch them.
    allowDependencies: spec.indexer === 'go',
    version: 'HEAD',
    project: spec.name,
    goCacheDir: join(cacheDir, 'scip', 'go-cache'),
  });
  if (spec.language === 'javascript') rmSync(join(root, 'tsconfig.json'));
  for (const f of hidden) renameSync(join(scratch, f), join(root, f));
  if (!run.ok) throw new Error(`${spec.indexer} failed (${run.failure}): ${run.tail}`);
  return { index: readScipIndex(readFileSync(output)), ms: run.ms, peakRssMb: run.peakRssMb };
}

function javaFiles(dir: string, out: string[]): void {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) javaFiles(p, out);
    else if (name.endsWith('.java') && name !== 'module-info.java' && name !== 'package-info.java') out.push(p);
  }
}

function runJava(spec: RepoSpec, root: string, scratch: string): IndexerResult {
  const lib = process.env.CKG_SCIP_JAVA_LIB ?? join(cacheDir, 'scip', 'java-0.10.3', 'lib');
  if (!existsSync(join(lib, 'scip-java_2.13-0.10.3.jar')))
    throw new Error(`scip-java is not installed in ${lib} (bash scripts/stack/indexers.sh java)`);
  const plugin = join(scratch, 'semanticdb-plugin.jar');
  execFileSync('unzip', ['-o', '-q', '-d', scratch, join(lib, 'scip-java_2.13-0.10.3.jar'), 'semanticdb-plugin.jar']);
  const files: string[] = [];
  for (const s of spec.javaSources ?? ['src/main/java']) if (existsSync(join(root, s))) javaFiles(join(root, s), files);
  const list = join(scratch, 'files.txt');
  writeFileSync(list, files.join('\n') + '\n');
  const target = join(scratch, 'semanticdb');
  mkdirSync(target, { recursive: true });
  const classpath = [plugin, ...readdirSync(lib).filter((f) => /^(error_prone_annotations|jsr305)-/.test(f))]
    .map((f) => (f.startsWith('/') ? f : join(lib, f)))
    .join(':');
  const t0 = performance.now();
  spawnSync(
    'javac',
    [
      '-d',
      join(scratch, 'classes'),
      '-proc:none',
      '-nowarn',
      '-implicit:none',
      '-encoding',
      'UTF-8',
      '-XDshould-stop.ifError=FLOW',
      '-XDshould-stop.at=FLOW',
      '-cp',
      classpath,
      `-Xplugin:semanticdb -sourceroot:${root} -targetroot:${target}`,
      `@${list}`,
    ],
    { encoding: 'utf8', timeout: 20 * 60_000, maxBuffer: 1 << 26 },
  );
  const output = join(scratch, 'index.scip');
  const r = spawnSync(
    'java',
    [
      '-cp',
      `${lib}/*`,
      'com.sourcegraph.scip_java.ScipJava',
      'index-semanticdb',
      '--no-parallel',
      '--output',
      output,
      target,
    ],
    { encoding: 'utf8', timeout: 20 * 60_000, maxBuffer: 1 << 26 },
  );
  if (r.status !== 0 || !existsSync(output))
    throw new Error(`scip-java index-semanticdb failed: ${(r.stderr || r.stdout).slice(-400)}`);
  const index = readScipIndex(readFileSync(output));
  index.tool = { name: 'scip-java', version: '0.10.3 (semanticdb-javac)' };
  return { index, ms: performance.now() - t0, peakRssMb: 0 };
}
