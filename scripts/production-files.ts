/**
 * The production code the house's checks read (scripts/check-imports.ts, scripts/long-functions.ts): its folders and
 * their TypeScript files (declarations, dist/ and dot-folders left out). Tests, benchmarks and scripts are not in it.
 */
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');

export const PRODUCTION_FOLDERS = [
  'activities',
  'cli',
  'engine',
  'gateway',
  'graph-api',
  'lib',
  'mcp',
  'schema',
  'standins',
  'temporal',
  'web/src',
  'workflows',
];

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...walk(full));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/** Every production TypeScript file, as an absolute path. */
export function productionFiles(): string[] {
  return PRODUCTION_FOLDERS.flatMap((f) => walk(join(ROOT, f)));
}
