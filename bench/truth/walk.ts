import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Repository-relative paths of the files under root accepted by `accept` (dot folders and node_modules skipped). */
export function walkFiles(root: string, accept: (rel: string) => boolean): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const e of readdirSync(rel === '' ? root : join(root, rel), { withFileTypes: true })) {
      if (e.name.startsWith('.') || e.name === 'node_modules') continue;
      const p = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && accept(p)) out.push(p);
    }
  };
  walk('');
  return out.sort();
}
