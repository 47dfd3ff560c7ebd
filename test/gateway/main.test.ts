import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closedPort } from '../support/upstream.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { waitFor } from '../support/wait.ts';

function run(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'gateway/main.ts'], {
    env: { ...process.env, LOG_LEVEL: 'info', METRICS_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  let buf = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    buf += c;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      lines.push(JSON.parse(buf.slice(0, i)) as Record<string, unknown>);
      buf = buf.slice(i + 1);
    }
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, lines, exited };
}

describe('gateway/main.ts', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(() => db.drop());

  it('a bad variable: exits 1 naming it', async () => {
    const p = run({ DATABASE_URL: db.url, CORS_ORIGINS: 'http://a.example' });
    assert.equal(await p.exited, 1);
    const line = p.lines.find((l) => l.event === 'config_invalid');
    assert.equal(line?.variable, 'CORS_ORIGINS');
  });

  it('starts (gateway_started), serves /health, and stops cleanly on SIGTERM (gateway_stopped, exit 0)', async () => {
    const port = await closedPort();
    const p = run({ DATABASE_URL: db.url, APP_PORT: String(port), APP_HOST: '127.0.0.1', AUTH_DISABLED: 'true' });
    await waitFor('gateway_started', () => p.lines.some((l) => l.event === 'gateway_started'), 20000, 10);
    const r = await fetch(`http://127.0.0.1:${port}/health`);
    assert.deepEqual(await r.json(), { status: 'ok' });
    p.child.kill('SIGTERM');
    assert.equal(await p.exited, 0);
    assert.ok(p.lines.some((l) => l.event === 'gateway_stopped'));
  });
});
