/**
 * Golden snapshots of the symbol graph (issue 28): each hand-written repository under
 * test/fixtures/engine/symbols/ analysed by the engine and resolved repo-wide, as stable JSON (symbol keys per file,
 * edges with provenance and confidence, unresolved uses, external calls). `node --import tsx
 * scripts/update-engine-snapshots.ts` rewrites them with the engine's snapshots; reviews read their diff.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createEngine, importTargets, resolveSymbolGraph } from '../../engine/index.ts';
import type { FileAnalysis, ResolveOutput, SymbolFileInput } from '../../engine/index.ts';

export const SYMBOL_REPOS_DIR = fileURLToPath(new URL('../fixtures/engine/symbols/', import.meta.url));
export const SYMBOL_SNAPSHOTS_DIR = fileURLToPath(new URL('../fixtures/engine/symbol-snapshots/', import.meta.url));

export function symbolRepos(): string[] {
  return readdirSync(SYMBOL_REPOS_DIR).sort();
}

/** Analyses a tree and builds the resolver's input (files in path order). */
export async function symbolInput(root: string): Promise<{ input: SymbolFileInput[]; analyses: FileAnalysis[] }> {
  const engine = createEngine({ threads: 1 });
  try {
    const tree = engine.openTree(root);
    const analyses: FileAnalysis[] = [];
    const input: SymbolFileInput[] = [];
    for await (const a of engine.analyzeFiles(tree, tree.files)) {
      analyses.push(a);
      if (a.symbol_facts)
        input.push({
          file_path: a.file_path,
          language: a.language,
          facts: a.symbol_facts,
          imports: importTargets(tree, a),
        });
    }
    analyses.sort((x, y) => (x.file_path < y.file_path ? -1 : 1));
    input.sort((x, y) => (x.file_path < y.file_path ? -1 : 1));
    return { input, analyses };
  } finally {
    await engine.close();
  }
}

export function symbolView(analyses: FileAnalysis[], out: ResolveOutput): Record<string, unknown> {
  const symbols: Record<string, string[]> = {};
  for (const a of analyses)
    if (a.symbols.length > 0) symbols[a.file_path] = a.symbols.map((s) => `${s.key} @${s.line}-${s.end_line}`);
  return {
    symbols,
    edges: out.edges.map(
      (e) =>
        `${e.label} ${e.from} -> ${e.to} [${e.provenance} ${e.confidence}]${e.lines.length > 0 ? ` lines ${e.lines.join(',')}` : ''}${e.count > 1 ? ` x${e.count}` : ''}`,
    ),
    unresolved: out.unresolved.map((u) => `${u.from}:${u.line} ${u.kind} ${u.text} (${u.reason})`),
    external: out.stats.external,
  };
}

export async function symbolSnapshotOf(repo: string): Promise<Record<string, unknown>> {
  const { input, analyses } = await symbolInput(SYMBOL_REPOS_DIR + repo);
  return symbolView(analyses, resolveSymbolGraph({ files: input }));
}

export function serialiseSymbols(view: Record<string, unknown>): string {
  return JSON.stringify(view, null, 2) + '\n';
}
