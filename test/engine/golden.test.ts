import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { reconstruct } from '../../engine/index.ts';
import { REPOS_DIR, SNAPSHOTS_DIR, fixtureRepos, serialise, snapshotOf } from './golden.ts';

for (const repo of fixtureRepos()) {
  test(`golden snapshot: ${repo}`, async () => {
    const { files, analyses } = await snapshotOf(repo);
    const expected = readFileSync(`${SNAPSHOTS_DIR}${repo}.json`, 'utf8');
    assert.equal(
      serialise(files),
      expected,
      `snapshot of ${repo} differs; run scripts/update-engine-snapshots.ts and review the diff`,
    );
    for (const a of analyses) {
      assert.equal(
        reconstruct(a.chunks),
        readFileSync(REPOS_DIR + repo + '/' + a.file_path, 'utf8'),
        `${a.file_path} reconstructs`,
      );
    }
  });
}
