/** lib/source-url.ts: which repository URLs a deployment fetches, and the 400 of POST /api/sources under it. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseCreate } from '../../graph-api/sources/body.ts';
import { readBody } from '../../lib/api/route.ts';
import { upsertSource } from '../../lib/api/routes/sources.ts';
import { InvalidArgumentError } from '../../lib/errors.ts';
import { DEFAULT_URL_POLICY, scrubUrl, sourceUrlPolicy, sourceUrlProblem } from '../../lib/source-url.ts';
import { TEST_URL_POLICY } from '../support/env.ts';

describe('repository URL policy', () => {
  it('production fetches https and ssh only; local paths, file:// and http only where the setting lists them', () => {
    for (const ok of ['https://github.com/acme/r.git', 'ssh://git@host/acme/r.git', 'git@github.com:acme/r.git']) {
      assert.equal(sourceUrlProblem(ok, DEFAULT_URL_POLICY), undefined, ok);
    }
    for (const local of ['/srv/repos/r', 'file:///srv/repos/r', 'http://10.0.0.5/internal.git']) {
      assert.match(sourceUrlProblem(local, DEFAULT_URL_POLICY) ?? '', /which this deployment does not fetch from/);
      assert.equal(sourceUrlProblem(local, TEST_URL_POLICY), undefined, local);
    }
    for (const never of [
      'ext::sh -c touch% /tmp/pwned',
      'git://host/r.git',
      'fd::3',
      '--upload-pack=touch /tmp/pwned',
      'relative/path',
      'file://otherhost/r',
      'ssh://-oProxyCommand=touch%20x/r',
      '-oProxyCommand=x@host:r',
    ]) {
      assert.ok(sourceUrlProblem(never, TEST_URL_POLICY), never);
    }
  });

  it('refuses credentials in URLs (400 naming url, the token not echoed) and scrubs stored ones', () => {
    for (const url of [
      'https://x-access-token:ghp_secret@github.com/acme/r.git',
      'https://ghp_secret@github.com/acme/r.git',
      'ssh://git:ghp_secret@host/r.git',
    ]) {
      assert.throws(
        () => parseCreate(readBody({ owner: 'a', name: 'b', url }, upsertSource.body!), DEFAULT_URL_POLICY),
        (e: unknown) =>
          e instanceof InvalidArgumentError &&
          e.field === 'url' &&
          /credentials/.test(e.message) &&
          !e.message.includes('ghp_secret'),
      );
      assert.ok(!scrubUrl(url).includes('ghp_secret'), scrubUrl(url));
    }
    assert.equal(scrubUrl('https://tok@github.com/a/r.git'), 'https://github.com/a/r.git');
    assert.equal(scrubUrl('ssh://git@host/r.git'), 'ssh://git@host/r.git', 'an ssh user is not a credential');
    assert.equal(scrubUrl('git@github.com:a/r.git'), 'git@github.com:a/r.git');
  });

  it('SOURCE_URL_HOSTS limits the code hosts; bad settings name the variable', () => {
    const policy = sourceUrlPolicy({ SOURCE_URL_SCHEMES: 'https, ssh', SOURCE_URL_HOSTS: 'github.com,.corp.example' });
    assert.equal(sourceUrlProblem('https://github.com/a/r.git', policy), undefined);
    assert.equal(sourceUrlProblem('https://git.corp.example/a/r.git', policy), undefined);
    assert.equal(sourceUrlProblem('git@git.corp.example:a/r.git', policy), undefined);
    assert.match(sourceUrlProblem('https://169.254.169.254/latest', policy) ?? '', /not among the code hosts/);
    assert.match(sourceUrlProblem('https://evilgithub.com/a/r.git', policy) ?? '', /not among the code hosts/);
    assert.throws(
      () => sourceUrlPolicy({ SOURCE_URL_SCHEMES: 'https,ext', SOURCE_URL_HOSTS: '' }),
      /SOURCE_URL_SCHEMES/,
    );
    assert.throws(() => sourceUrlPolicy({ SOURCE_URL_SCHEMES: '', SOURCE_URL_HOSTS: '' }), /SOURCE_URL_SCHEMES/);
    assert.throws(() => sourceUrlPolicy({ SOURCE_URL_SCHEMES: 'https', SOURCE_URL_HOSTS: 'a b' }), /SOURCE_URL_HOSTS/);
  });
});
