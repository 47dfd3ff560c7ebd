import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../lib/log.ts';

describe('structured logging', () => {
  it('writes one JSON object per event with level, component and event name', () => {
    const lines: string[] = [];
    const log = createLogger('gateway', { level: 'info', write: (l) => lines.push(l) });
    log.debug('hidden');
    log.info('gateway_started', { port: 8080 });
    log.child({ request_id: 'r1' }).warning('auth_failed', { reason: 'expired' });
    assert.equal(lines.length, 2);
    const a = JSON.parse(lines[0]!) as Record<string, unknown>;
    assert.equal(a.level, 'info');
    assert.equal(a.component, 'gateway');
    assert.equal(a.event, 'gateway_started');
    assert.equal(a.port, 8080);
    const b = JSON.parse(lines[1]!) as Record<string, unknown>;
    assert.deepEqual([b.level, b.event, b.request_id, b.reason], ['warning', 'auth_failed', 'r1', 'expired']);
  });

  it('redacts secrets at any depth', () => {
    const lines: string[] = [];
    const log = createLogger('x', { write: (l) => lines.push(l) });
    log.info('clone', {
      access_token: 'ghp_abc',
      nested: { headers: { authorization: 'Bearer xyz' }, client_secret: 's3' },
    });
    assert.ok(!lines[0]!.includes('ghp_abc') && !lines[0]!.includes('xyz') && !lines[0]!.includes('s3'), lines[0]);
    assert.match(lines[0]!, /"access_token":"\[redacted\]"/);
  });

  it('keeps fields that only talk about tokens', () => {
    const lines: string[] = [];
    const log = createLogger('x', { write: (l) => lines.push(l) });
    log.info('chat', {
      prompt_tokens: 12,
      token_url: 'http://idp/token',
      token: 'abc',
      LLM_API_KEY: 'k',
      password: 'p',
    });
    const rec = JSON.parse(lines[0]!) as Record<string, unknown>;
    assert.equal(rec.prompt_tokens, 12);
    assert.equal(rec.token_url, 'http://idp/token');
    assert.deepEqual([rec.token, rec.LLM_API_KEY, rec.password], ['[redacted]', '[redacted]', '[redacted]']);
  });
});
