/**
 * GitNexus (npm `gitnexus`), the closest open-source peer, installed into a cache folder outside the checkout on first
 * use (`npm i gitnexus` without install scripts, then its graph database's prebuilt binary put in place); nothing of it
 * enters the project's dependencies. Used by bench/vs-gitnexus.ts (speed) and bench/truth-symbols/ (call edges).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const gitnexusCacheDir = join(process.env.CKG_CACHE_DIR ?? join(homedir(), '.cache', 'ckg'), 'gitnexus');

/** The gitnexus executable, installed when missing. */
export function installGitnexus(): string {
  const bin = join(gitnexusCacheDir, 'node_modules', '.bin', 'gitnexus');
  if (existsSync(bin)) return bin;
  mkdirSync(gitnexusCacheDir, { recursive: true });
  console.log(`installing gitnexus into ${gitnexusCacheDir} …`);
  execFileSync('npm', ['init', '-y'], { cwd: gitnexusCacheDir, stdio: 'ignore' });
  // Install scripts are skipped: onnxruntime-node's downloads a runtime from the internet (refused here; it serves
  // only embeddings, which the comparisons leave off). The graph database's own script only copies its prebuilt
  // binary from the platform package, so it is run by itself.
  execFileSync('npm', ['i', '--no-audit', '--no-fund', '--ignore-scripts', 'gitnexus'], {
    cwd: gitnexusCacheDir,
    stdio: 'inherit',
  });
  execFileSync('node', ['install.js'], {
    cwd: join(gitnexusCacheDir, 'node_modules', '@ladybugdb', 'core'),
    stdio: 'inherit',
  });
  return bin;
}
