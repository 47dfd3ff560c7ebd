import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Truth } from './types.ts';
import { walkFiles } from './walk.ts';

const SCRIPT = fileURLToPath(new URL('./php_edges.php', import.meta.url));
const PHP_PARSER = '/usr/share/php/PhpParser/autoload.php';

/** Debian's php-cli, nikic/PHP-Parser and composer, installed when missing (as ruby.ts does for Ruby). */
function ensureTools(): void {
  let ok = existsSync(PHP_PARSER);
  for (const tool of ['php', 'composer']) {
    try {
      execFileSync(tool, ['--version'], { stdio: 'ignore' });
    } catch {
      ok = false;
    }
  }
  if (!ok) execFileSync('apt-get', ['install', '-y', 'php-cli', 'php-parser', 'composer'], { stdio: 'ignore' });
}

/**
 * A vendor folder committed to the tree (vendor/composer/installed.json) is the installed repository composer reads:
 * its package folders are linked into the temporary vendor folder, so the maps point at the tree's files.
 */
function linkInstalled(committed: string, vendor: string): void {
  const installed = join(committed, 'composer', 'installed.json');
  if (!existsSync(installed)) return;
  mkdirSync(join(vendor, 'composer'), { recursive: true });
  copyFileSync(installed, join(vendor, 'composer', 'installed.json'));
  for (const e of readdirSync(committed, { withFileTypes: true })) {
    if (e.isDirectory() && e.name !== 'composer' && e.name !== 'bin')
      symlinkSync(join(committed, e.name), join(vendor, e.name));
  }
}

/**
 * Composer's autoload rules and PHP-Parser (php_edges.php): `composer dump-autoload --dev` writes the autoload maps
 * of every composer.json of the tree (outside vendor/ and node_modules/) into a temporary vendor folder, the checkout
 * is left untouched; Composer's ClassLoader answers class lookups; includes are evaluated.
 */
export function phpTruth(root: string): Truth {
  ensureTools();
  const work = mkdtempSync(join(tmpdir(), 'truth-php-'));
  try {
    const manifests = walkFiles(root, (p) => p.endsWith('composer.json') && !p.split('/').includes('vendor'))
      .filter((p) => p === 'composer.json' || p.endsWith('/composer.json'))
      .sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : 1));
    const packages: Array<{ dir: string; vendor: string }> = [];
    const skipped: string[] = [];
    manifests.forEach((m, i) => {
      const dir = dirname(m) === '.' ? '' : dirname(m);
      const vendor = join(work, `v${i}`);
      try {
        linkInstalled(join(root, dir, 'vendor'), vendor);
        execFileSync('composer', ['dump-autoload', '--dev', '--no-interaction', '--no-scripts', '--no-plugins'], {
          cwd: join(root, dir),
          env: { ...process.env, COMPOSER_HOME: join(work, 'home'), COMPOSER_VENDOR_DIR: vendor },
          stdio: 'ignore',
        });
        packages.push({ dir, vendor });
      } catch {
        skipped.push(m);
      }
    });
    const list = join(work, 'packages.json');
    writeFileSync(list, JSON.stringify(packages));
    const out = execFileSync('php', ['-d', 'memory_limit=2G', SCRIPT, root, list], {
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    });
    const scope = new Set<string>();
    const items: Truth['items'] = [];
    const via = new Map<string, number>();
    for (const line of out.split('\n')) {
      if (line.trim() === '') continue;
      const row = JSON.parse(line) as { scope?: string; from?: string; targets?: string[]; via?: string };
      if (row.scope !== undefined) scope.add(row.scope);
      else if (row.from !== undefined) {
        items.push({ from: row.from, targets: new Set(row.targets ?? []) });
        via.set(row.via!, (via.get(row.via!) ?? 0) + 1);
      }
    }
    const kinds = [...via.entries()]
      .sort()
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
    const version = execFileSync('php', ['-r', 'echo PHP_VERSION;'], { encoding: 'utf8' }).trim();
    return {
      tool:
        `PHP ${version}, nikic/PHP-Parser + NameResolver, Composer ClassLoader over dump-autoload --dev of ` +
        `${packages.length} composer.json${skipped.length ? ` (failed: ${skipped.join(', ')})` : ''}` +
        `; imports by kind: ${kinds}`,
      scope,
      items,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
