/** lib/git-ref.ts agrees with git's own `check-ref-format --allow-onelevel`, and refuses every leading '-'. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { gitRefProblem, isCommitId } from '../../lib/git-ref.ts';

const NAMES = [
  'main',
  'feature/x-1',
  'refs/heads/main',
  'v1.2.3',
  'ünïcode',
  'a+b',
  'a@b',
  '0123456789abcdef0123456789abcdef01234567',
  '@',
  'a..b',
  'a b',
  'a\tb',
  'a~1',
  'a^',
  'a:b',
  'a?',
  'a*',
  'a[b',
  'a\\b',
  '/a',
  'a/',
  'a//b',
  'a.',
  '.a',
  'a/.b',
  'a.lock',
  'a.lock/b',
  'a@{1}',
  'a\u007f',
];

describe('git ref names', () => {
  it("match git check-ref-format --allow-onelevel on every sample; a leading '-' is always refused", () => {
    for (const name of NAMES) {
      const git = spawnSync('git', ['check-ref-format', '--allow-onelevel', name]).status === 0;
      assert.equal(gitRefProblem(name) === undefined, git, `${JSON.stringify(name)}: git says ${git}`);
    }
    for (const name of ['-b', '--upload-pack=touch /tmp/x', '-', '--end-of-options']) {
      assert.match(gitRefProblem(name) ?? '', /must not start with '-'/, name);
    }
    assert.match(gitRefProblem('x'.repeat(256)) ?? '', /at most 255 bytes/);
  });

  it('commit ids are full lower-case hex ids only', () => {
    assert.equal(isCommitId('a'.repeat(40)), true);
    assert.equal(isCommitId('a'.repeat(64)), true);
    assert.equal(isCommitId('A'.repeat(40)), false);
    assert.equal(isCommitId(`--${'a'.repeat(38)}`), false);
    assert.equal(isCommitId('a'.repeat(41)), false);
  });
});
