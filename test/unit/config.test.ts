import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../lib/config.ts';
import { ConfigError } from '../../lib/errors.ts';

const spec = {
  APP_PORT: { type: 'int', default: 8082, min: 1, max: 65535 },
  DATABASE_URL: { type: 'url', secret: true },
  AUTH_DISABLED: { type: 'bool', default: false },
  CORS_ORIGINS: { type: 'json-string-list', default: [] as string[] },
  RATIO: { type: 'number', default: 0.88, min: 0, max: 1 },
} as const;

const base = { DATABASE_URL: 'postgresql://u:pw@h:5432/db' };

describe('configuration', () => {
  it('applies defaults and parses values', () => {
    assert.deepEqual(loadConfig(spec, { ...base, AUTH_DISABLED: 'true', CORS_ORIGINS: '["http://a"]' }), {
      APP_PORT: 8082,
      DATABASE_URL: base.DATABASE_URL,
      AUTH_DISABLED: true,
      CORS_ORIGINS: ['http://a'],
      RATIO: 0.88,
    });
  });

  for (const [name, env, pattern] of [
    ['APP_PORT', { ...base, APP_PORT: 'eighty' }, /^APP_PORT: must be an integer/],
    ['APP_PORT', { ...base, APP_PORT: '70000' }, /^APP_PORT: must be <= 65535/],
    ['DATABASE_URL', {}, /^DATABASE_URL: is required/],
    ['DATABASE_URL', { DATABASE_URL: 'not a url' }, /^DATABASE_URL: must be/],
    ['AUTH_DISABLED', { ...base, AUTH_DISABLED: 'maybe' }, /^AUTH_DISABLED: must be true or false/],
    ['CORS_ORIGINS', { ...base, CORS_ORIGINS: 'http://a' }, /^CORS_ORIGINS: must be a JSON list/],
    ['RATIO', { ...base, RATIO: '1.5' }, /^RATIO: must be <= 1/],
  ] as const) {
    it(`names ${name} when it is bad (${JSON.stringify(env[name as keyof typeof env] ?? 'unset')})`, () => {
      assert.throws(
        () => loadConfig(spec, env),
        (err: unknown) => err instanceof ConfigError && err.variable === name && pattern.test(err.message),
      );
    });
  }

  it('never echoes a secret value in the message', () => {
    assert.throws(
      () => loadConfig(spec, { DATABASE_URL: 'hunter2-secret' }),
      (err: unknown) => err instanceof ConfigError && !err.message.includes('hunter2'),
    );
  });
});
