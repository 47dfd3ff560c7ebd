/**
 * Builds the `ckg` command (cli/main.ts and what it imports, dependencies included) with esbuild into one ES module,
 * cli/dist/ckg.mjs, beside cli/dist/inputs.json (the files it was built from). cli/bin.mjs runs the bundle when it is
 * newer than every one of those files, else the TypeScript through tsx: a bundled start takes ~0.2 CPU-s, one
 * through tsx's loader ~0.8 (docs/agents.md). The build goes to temporary files renamed into place, so a `ckg`
 * starting meanwhile never reads half a build.
 *
 *   node --import tsx scripts/build-cli.ts [--force]     # skips the build when the bundle is newer than its inputs
 */
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
export const CLI_DIST = join(root, 'cli', 'dist');
const BUNDLE = join(CLI_DIST, 'ckg.mjs');
const INPUTS = join(CLI_DIST, 'inputs.json');

/** True when the bundle exists and no file it was built from (nor this script) is newer. */
export function cliIsFresh(): boolean {
  if (!existsSync(BUNDLE) || !existsSync(INPUTS)) return false;
  const built = statSync(BUNDLE).mtimeMs;
  const inputs = JSON.parse(readFileSync(INPUTS, 'utf8')) as string[];
  const own = relative(root, fileURLToPath(import.meta.url));
  return [...inputs, own].every((p) => existsSync(join(root, p)) && statSync(join(root, p)).mtimeMs <= built);
}

export async function buildCli(): Promise<{ bytes: number; inputs: number }> {
  mkdirSync(CLI_DIST, { recursive: true });
  const tmp = `${BUNDLE}.tmp-${process.pid}`;
  const result = await build({
    absWorkingDir: root,
    entryPoints: [join(root, 'cli', 'main.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: ['node20'],
    outfile: tmp,
    metafile: true,
    logLevel: 'silent',
    // The bundled CommonJS dependencies call require: give the module one.
    banner: {
      js: "import { createRequire as __ckgRequire } from 'node:module';\nconst require = __ckgRequire(import.meta.url);",
    },
  });
  const inputs = Object.keys(result.metafile.inputs).filter((p) => !p.includes(':'));
  writeFileSync(`${INPUTS}.tmp-${process.pid}`, JSON.stringify(inputs) + '\n');
  // Inputs first, bundle last: a bundle is never newer than a list that does not name its inputs.
  renameSync(`${INPUTS}.tmp-${process.pid}`, INPUTS);
  renameSync(tmp, BUNDLE);
  return { bytes: statSync(BUNDLE).size, inputs: inputs.length };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (!process.argv.includes('--force') && cliIsFresh()) {
    process.stdout.write('ckg: up to date\n');
  } else {
    const t0 = Date.now();
    buildCli().then(
      (r) =>
        process.stdout.write(
          `ckg: built cli/dist/ckg.mjs (${Math.round(r.bytes / 1024)} KiB, ${r.inputs} inputs) in ${Date.now() - t0} ms\n`,
        ),
      (err: unknown) => {
        process.stderr.write(`ckg: build failed: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exitCode = 1;
      },
    );
  }
}
