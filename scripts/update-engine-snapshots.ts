/**
 * Regenerates the engine's golden snapshots: `node --import tsx scripts/update-engine-snapshots.ts [repo ...]`
 * (the per-file snapshots of test/fixtures/engine/repos and the symbol graph snapshots of
 * test/fixtures/engine/symbols).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { SNAPSHOTS_DIR, fixtureRepos, serialise, snapshotOf } from '../test/engine/golden.ts';
import { SYMBOL_SNAPSHOTS_DIR, serialiseSymbols, symbolRepos, symbolSnapshotOf } from '../test/engine/symbols.ts';

const wanted = process.argv.slice(2);
for (const repo of fixtureRepos()) {
  if (wanted.length > 0 && !wanted.includes(repo)) continue;
  const { files } = await snapshotOf(repo);
  writeFileSync(`${SNAPSHOTS_DIR}${repo}.json`, serialise(files));
  console.log(`wrote ${repo}.json (${files.length} files)`);
}
mkdirSync(SYMBOL_SNAPSHOTS_DIR, { recursive: true });
for (const repo of symbolRepos()) {
  if (wanted.length > 0 && !wanted.includes(repo)) continue;
  const view = await symbolSnapshotOf(repo);
  writeFileSync(`${SYMBOL_SNAPSHOTS_DIR}${repo}.json`, serialiseSymbols(view));
  console.log(`wrote symbol-snapshots/${repo}.json (${(view.edges as unknown[]).length} edges)`);
}
