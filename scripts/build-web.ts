/**
 * Builds the web explorer (web/) with esbuild into web/dist: one hashed JavaScript bundle, one hashed stylesheet, and
 * index.html pointing at them (with a `{{CONFIG}}` placeholder the gateway fills in). The build goes to a temporary
 * folder that then replaces web/dist, so a running gateway never reads half a build.
 *
 *   node --import tsx scripts/build-web.ts [--force]     # skips the build when web/dist is newer than its inputs
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
export const WEB_DIR = join(root, 'web');
export const DIST_DIR = join(WEB_DIR, 'dist');

function newestInput(): number {
  let newest = statSync(join(root, 'package-lock.json')).mtimeMs;
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      const st = statSync(full);
      if (st.isDirectory()) walk(full);
      else newest = Math.max(newest, st.mtimeMs);
    }
  };
  walk(join(WEB_DIR, 'src'));
  newest = Math.max(
    newest,
    statSync(join(WEB_DIR, 'index.html')).mtimeMs,
    statSync(fileURLToPath(import.meta.url)).mtimeMs,
  );
  return newest;
}

export function explorerIsFresh(dist = DIST_DIR): boolean {
  const index = join(dist, 'index.html');
  return existsSync(index) && statSync(index).mtimeMs >= newestInput();
}

export async function buildExplorer(dist = DIST_DIR): Promise<{ js: string; css: string; bytes: number }> {
  const tmp = `${dist}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const result = await build({
    entryPoints: [join(WEB_DIR, 'src', 'main.ts')],
    bundle: true,
    format: 'esm',
    target: ['es2022'],
    minify: true,
    legalComments: 'eof',
    entryNames: '[name]-[hash]',
    outdir: tmp,
    metafile: true,
    logLevel: 'silent',
  });
  const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
  const js = outputs.find((n) => n.endsWith('.js'));
  const css = outputs.find((n) => n.endsWith('.css'));
  if (!js || !css) throw new Error(`esbuild wrote ${outputs.join(', ')}: no .js or no .css`);
  const html = readFileSync(join(WEB_DIR, 'index.html'), 'utf8').replace('{{JS}}', js).replace('{{CSS}}', css);
  writeFileSync(join(tmp, 'index.html'), html);
  const bytes = outputs.reduce((s, n) => s + statSync(join(tmp, n)).size, 0);
  const old = `${dist}.old-${process.pid}`;
  if (existsSync(dist)) renameSync(dist, old);
  renameSync(tmp, dist);
  rmSync(old, { recursive: true, force: true });
  return { js, css, bytes };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const force = process.argv.includes('--force');
  if (!force && explorerIsFresh()) {
    process.stdout.write('web explorer: up to date\n');
  } else {
    const t0 = Date.now();
    buildExplorer().then(
      (r) =>
        process.stdout.write(
          `web explorer: built ${r.js} and ${r.css} (${Math.round(r.bytes / 1024)} KiB) in ${Date.now() - t0} ms\n`,
        ),
      (err: unknown) => {
        process.stderr.write(`web explorer: build failed: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exit(1);
      },
    );
  }
}
