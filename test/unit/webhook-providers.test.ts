// The three code hosts' webhook dialects (temporal/ingestion/webhooks/providers.ts): signatures and the events they
// carry, read from payloads in each host's documented shape. The end-to-end path is test/e2e/webhooks.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import {
  MalformedDelivery,
  readDelivery,
  repoIdentity,
  urlKey,
  verifySignature,
} from '../../temporal/ingestion/webhooks/providers.ts';

const SHA = 'a'.repeat(40);
const SECRET = 'a-secret-of-some-length';
const hmac = (body: Buffer, secret = SECRET) => createHmac('sha256', secret).update(body).digest('hex');

describe('webhook signatures', () => {
  const body = Buffer.from('{"x":1}');
  it('GitHub: sha256=<hex> over the exact bytes', () => {
    assert.ok(verifySignature('github', { 'x-hub-signature-256': `sha256=${hmac(body)}` }, body, SECRET));
    assert.ok(!verifySignature('github', { 'x-hub-signature-256': hmac(body) }, body, SECRET), 'prefix required');
    assert.ok(!verifySignature('github', { 'x-hub-signature-256': `sha256=${hmac(body, 'other')}` }, body, SECRET));
    assert.ok(
      !verifySignature('github', { 'x-hub-signature-256': `sha256=${hmac(Buffer.from('{"x":2}'))}` }, body, SECRET),
    );
    assert.ok(!verifySignature('github', { 'x-hub-signature-256': 'sha256=zz' }, body, SECRET));
    assert.ok(!verifySignature('github', {}, body, SECRET));
  });
  it('Gitea and Forgejo: bare hex in X-Gitea-Signature or X-Forgejo-Signature', () => {
    assert.ok(verifySignature('gitea', { 'x-gitea-signature': hmac(body) }, body, SECRET));
    assert.ok(verifySignature('gitea', { 'x-forgejo-signature': hmac(body).toUpperCase() }, body, SECRET));
    assert.ok(!verifySignature('gitea', { 'x-gitea-signature': hmac(body, 'other') }, body, SECRET));
  });
  it('GitLab: the secret itself in X-Gitlab-Token', () => {
    assert.ok(verifySignature('gitlab', { 'x-gitlab-token': SECRET }, body, SECRET));
    assert.ok(!verifySignature('gitlab', { 'x-gitlab-token': SECRET.slice(1) }, body, SECRET));
    assert.ok(!verifySignature('gitlab', {}, body, SECRET));
  });
});

describe('webhook events', () => {
  const read = (provider: 'github' | 'gitlab' | 'gitea', headers: Record<string, string>, payload: unknown) =>
    readDelivery(provider, headers, Buffer.from(JSON.stringify(payload)), payload);
  const repo = { full_name: 'acme/widgets', clone_url: 'https://github.com/acme/widgets.git' };

  it('GitHub push on a branch, a tag push, a branch deletion', () => {
    const h = { 'x-github-event': 'push', 'x-github-delivery': 'd1' };
    const push = read('github', h, { ref: 'refs/heads/main', after: SHA.toUpperCase(), repository: repo });
    assert.deepEqual(push.action, { kind: 'push', branch: 'main', commit: SHA });
    assert.deepEqual(push.repo, { fullName: 'acme/widgets', urls: ['https://github.com/acme/widgets.git'] });
    assert.equal(read('github', h, { ref: 'refs/tags/v1', after: SHA, repository: repo }).action.kind, 'ignored');
    const gone = read('github', h, { ref: 'refs/heads/x', after: '0'.repeat(40), deleted: true, repository: repo });
    assert.deepEqual(gone.action, { kind: 'ignored', reason: 'the branch was deleted' });
  });

  it('GitHub pull_request: opened/synchronize sync refs/pull/N/head, closed closes, labeled is ignored', () => {
    const h = { 'x-github-event': 'pull_request', 'x-github-delivery': 'd2' };
    const pr = (action: string, merged = false) => ({
      action,
      number: 12,
      pull_request: { number: 12, merged, base: { ref: 'main' }, head: { ref: 'feature', sha: SHA } },
      repository: repo,
    });
    assert.deepEqual(read('github', h, pr('synchronize')).action, {
      kind: 'pr_sync',
      number: 12,
      ref: 'refs/pull/12/head',
      baseRef: 'main',
      headCommit: SHA,
    });
    assert.deepEqual(read('github', h, pr('closed', true)).action, { kind: 'pr_closed', number: 12, merged: true });
    assert.equal(read('github', h, pr('labeled')).action.kind, 'ignored');
  });

  it('Gitea pull_request says synchronized; its event and delivery headers are its own', () => {
    const h = { 'x-gitea-event': 'pull_request', 'x-gitea-delivery': 'g1' };
    const d = read('gitea', h, {
      action: 'synchronized',
      number: 4,
      pull_request: { number: 4, base: { ref: 'dev' }, head: { sha: SHA } },
      repository: repo,
    });
    assert.equal(d.deliveryId, 'g1');
    assert.deepEqual(d.action, {
      kind: 'pr_sync',
      number: 4,
      ref: 'refs/pull/4/head',
      baseRef: 'dev',
      headCommit: SHA,
    });
  });

  it('GitLab push and merge request hooks (object_kind), with the event UUID as delivery id', () => {
    const project = {
      path_with_namespace: 'group/sub/widgets',
      git_http_url: 'https://gl.example/group/sub/widgets.git',
    };
    const push = read(
      'gitlab',
      { 'x-gitlab-event': 'Push Hook', 'x-gitlab-event-uuid': 'u1' },
      { object_kind: 'push', ref: 'refs/heads/main', after: SHA, checkout_sha: SHA, project },
    );
    assert.deepEqual(push.action, { kind: 'push', branch: 'main', commit: SHA });
    assert.equal(push.repo.fullName, 'group/sub/widgets');
    const mr = read(
      'gitlab',
      { 'x-gitlab-event': 'Merge Request Hook', 'x-gitlab-event-uuid': 'u2' },
      {
        object_kind: 'merge_request',
        project,
        object_attributes: { iid: 9, action: 'update', oldrev: SHA, target_branch: 'main', last_commit: { id: SHA } },
      },
    );
    assert.deepEqual(mr.action, {
      kind: 'pr_sync',
      number: 9,
      ref: 'refs/merge-requests/9/head',
      baseRef: 'main',
      headCommit: SHA,
    });
  });

  it('refuses deliveries without their identifying parts, naming the part', () => {
    assert.throws(() => read('github', { 'x-github-delivery': 'x' }, { repository: repo }), MalformedDelivery);
    assert.throws(
      () => read('github', { 'x-github-event': 'push' }, { ref: 'refs/heads/main', repository: repo }),
      /delivery id/,
    );
    assert.throws(() => repoIdentity('github', { repository: {} }), /repository.full_name/);
    assert.throws(() => repoIdentity('gitlab', []), /not a JSON object/);
  });

  it('keys clone URLs by host and path, whatever the form', () => {
    assert.equal(urlKey('https://GitHub.com/Acme/Widgets.git'), 'github.com/acme/widgets');
    assert.equal(urlKey('git@github.com:acme/widgets.git'), 'github.com/acme/widgets');
    assert.equal(urlKey('not a url'), undefined);
  });
});
