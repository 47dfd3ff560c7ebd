// The ingestion process entry: validates its environment (naming the bad variable), logs ingestion_started,
// serves /health, and exits 0 on SIGTERM.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { testEnv } from '../support/env.ts';
import { waitFor } from '../support/wait.ts';

const entry = fileURLToPath(new URL('../../temporal/ingestion-main.ts', import.meta.url));

function run(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    env: { ...process.env, DATABASE_URL: testEnv.databaseUrl, TEMPORAL_ADDRESS: testEnv.temporalAddress, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Array<Record<string, unknown>> = [];
  let buffer = '';
  child.stdout.on('data', (d: Buffer) => {
    buffer += d.toString();
    let i;
    while ((i = buffer.indexOf('\n')) >= 0) {
      lines.push(JSON.parse(buffer.slice(0, i)) as Record<string, unknown>);
      buffer = buffer.slice(i + 1);
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, lines, exited };
}

describe('ingestion-main', () => {
  it('starts, logs ingestion_started with its port, answers /health, and stops cleanly on SIGTERM', async () => {
    const p = run({ APP_PORT: '0', APP_HOST: '127.0.0.1' });
    const started = await waitFor(
      () => `ingestion_started: ${JSON.stringify(p.lines)}`,
      () => p.lines.find((l) => l.event === 'ingestion_started'),
      30_000,
    );
    assert.equal(started.component, 'ingestion');
    assert.equal(started.task_queue, 'ckg-sync');
    const res = await fetch(`http://127.0.0.1:${String(started.port)}/health`);
    assert.deepEqual(await res.json(), { status: 'ok' });
    p.child.kill('SIGTERM');
    assert.equal(await p.exited, 0);
    assert.ok(p.lines.some((l) => l.event === 'ingestion_stopped'));
  });

  it('refuses a bad environment and names the variable', async () => {
    const p = run({ APP_PORT: 'eighty' });
    assert.equal(await p.exited, 1);
    const line = p.lines.find((l) => l.event === 'config_invalid');
    assert.equal(line?.variable, 'APP_PORT');
  });
});
