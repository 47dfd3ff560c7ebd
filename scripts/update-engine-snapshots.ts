/** Regenerates the engine's golden snapshots: `node --import tsx scripts/update-engine-snapshots.ts [repo ...]`. */
import { writeFileSync } from 'node:fs';
import { SNAPSHOTS_DIR, fixtureRepos, serialise, snapshotOf } from '../test/engine/golden.ts';

const wanted = process.argv.slice(2);
for (const repo of fixtureRepos()) {
  if (wanted.length > 0 && !wanted.includes(repo)) continue;
  const { files } = await snapshotOf(repo);
  writeFileSync(`${SNAPSHOTS_DIR}${repo}.json`, serialise(files));
  console.log(`wrote ${repo}.json (${files.length} files)`);
}
