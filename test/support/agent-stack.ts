/**
 * For the MCP and CLI tests: the whole service in-process (support/service.ts), a service-account token from the
 * identity provider through the gateway, and how to run the real `ckg` binary (cli/bin.mjs) as a process.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService, type Service } from './service.ts';

export const CLI_BIN = new URL('../../cli/bin.mjs', import.meta.url).pathname;

export interface AgentStack {
  svc: Service;
  token: string;
  close(): Promise<void>;
}

export async function clientToken(gatewayUrl: string, secret: string, clientId = 'service-gateway'): Promise<string> {
  const res = await fetch(`${gatewayUrl}/auth/realms/service/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }),
  });
  if (!res.ok) throw new Error(`token: HTTP ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

export async function startAgentStack(): Promise<AgentStack> {
  const svc = await startService({ accessTokenTtlSeconds: 3600 });
  try {
    const token = await clientToken(svc.gateway.url, svc.idp.gatewayClientSecret);
    return { svc, token, close: () => svc.close() };
  } catch (err) {
    await svc.close();
    throw err;
  }
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A fresh, empty XDG_CONFIG_HOME. */
export function configHome(): string {
  return mkdtempSync(join(tmpdir(), 'ckg-cli-config-'));
}

/** Runs `ckg <args>` as its own process (the executable file itself, shebang and all) and collects its output. */
export function runCli(args: string[], env: Record<string, string>, timeoutMs = 120_000): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(CLI_BIN, args, {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
