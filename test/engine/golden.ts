/**
 * Golden snapshots: the engine's view of each hand-written repository under test/fixtures/engine/repos, as
 * stable JSON. `node --import tsx scripts/update-engine-snapshots.ts` rewrites them; reviews read their diff.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../../engine/index.ts';
import type { FileAnalysis } from '../../engine/index.ts';

export const REPOS_DIR = fileURLToPath(new URL('../fixtures/engine/repos/', import.meta.url));
export const SNAPSHOTS_DIR = fileURLToPath(new URL('../fixtures/engine/snapshots/', import.meta.url));

export function fixtureRepos(): string[] {
  return readdirSync(REPOS_DIR).sort();
}

function view(a: FileAnalysis): Record<string, unknown> {
  return {
    path: a.file_path,
    name: a.name,
    type: a.type,
    language: a.language,
    size_bytes: a.size_bytes,
    line_count: a.line_count,
    imports_count: a.imports_count,
    external_imports: a.external_imports,
    exports: a.exports,
    symbols: a.symbols.map((s) => `${s.kind} ${s.name} @${s.line}`),
    depends_on: a.dependencies.map((d) => `${d.target_path} (weight ${d.weight})`),
    issues: a.issues.map((i) => `${i.level} ${i.phase} ${i.code}`),
    chunks: a.chunks.map((c) => ({
      lines: `${c.start_line}-${c.end_line}`,
      type: c.chunk_type,
      in: c.content.split('\n')[1]?.slice('# in: '.length),
      symbols: c.symbols,
      tokens: c.token_count,
    })),
  };
}

/** Analyses one fixture repository and returns its snapshot (files sorted by path). */
export async function snapshotOf(
  repo: string,
): Promise<{ files: Record<string, unknown>[]; analyses: FileAnalysis[] }> {
  const engine = createEngine({ threads: 1 });
  try {
    const analyses: FileAnalysis[] = [];
    for await (const a of engine.analyzeTree(REPOS_DIR + repo)) analyses.push(a);
    analyses.sort((x, y) => (x.file_path < y.file_path ? -1 : 1));
    return { files: analyses.map(view), analyses };
  } finally {
    await engine.close();
  }
}

export function serialise(files: Record<string, unknown>[]): string {
  return JSON.stringify({ files }, null, 2) + '\n';
}
