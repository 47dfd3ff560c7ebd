import type { Dependency } from './types.ts';
import type { ImportRef } from './languages/plugin.ts';
import type { RepoIndex } from './resolve/repo-index.ts';
import { pluginById } from './languages/registry.ts';

/**
 * Turns a file's imports into depends_on edges. The weight of an edge is the number of imports of the file that
 * resolve to the target (an import statement, or one imported name where the language imports per name, e.g.
 * Python's `from m import a, b`). Imports that resolve to no file of the tree, or only to the file itself, count
 * as external.
 */
export function resolveImports(
  language: string,
  from: string,
  imports: readonly ImportRef[],
  repo: RepoIndex,
): { dependencies: Dependency[]; external: number } {
  const plugin = pluginById(language);
  const weights = new Map<string, number>();
  let external = 0;
  for (const ref of imports) {
    const targets = plugin ? plugin.resolve(ref, from, repo).filter((t) => t !== from) : [];
    if (targets.length === 0) external++;
    for (const t of targets) weights.set(t, (weights.get(t) ?? 0) + 1);
  }
  const dependencies = [...weights.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([target_path, weight]) => ({ target_path, weight }));
  return { dependencies, external };
}
