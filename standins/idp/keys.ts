/**
 * RS256 signing keys of the IdP stand-in, persisted in `<state dir>/keys.json` (mode 0600).
 *
 * Exactly one key is current (it signs). `rotateKeys` makes a new current key and retires the old one: a retired key
 * no longer signs but stays in the JWKS until its `expiresAt` (now + grace), so tokens it signed keep validating for
 * the grace period, the way Keycloak keeps a rotated key "passive". Keys past `expiresAt` are dropped.
 */
import { generateKeyPairSync, createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

/** A private RSA key as a JWK (what oidc-provider's `jwks` option takes). */
export interface PrivateJwk {
  kty: 'RSA';
  kid: string;
  alg: 'RS256';
  use: 'sig';
  n: string;
  e: string;
  d: string;
  p: string;
  q: string;
  dp: string;
  dq: string;
  qi: string;
}

export interface StoredKey {
  kid: string;
  createdAt: string;
  /** Null while current. */
  retiredAt: string | null;
  /** Null while current; after this instant the key leaves the JWKS. */
  expiresAt: string | null;
  jwk: PrivateJwk;
}

export interface KeyFile {
  keys: StoredKey[];
}

export const KEYS_FILE = 'keys.json';

function newKey(now: Date): StoredKey {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = privateKey.export({ format: 'jwk' });
  // kid: RFC 7638 thumbprint of the public key.
  const thumbprint = createHash('sha256')
    .update(JSON.stringify({ e: jwk.e, kty: 'RSA', n: jwk.n }))
    .digest('base64url');
  return {
    kid: thumbprint,
    createdAt: now.toISOString(),
    retiredAt: null,
    expiresAt: null,
    jwk: { ...(jwk as Omit<PrivateJwk, 'kid' | 'alg' | 'use'>), kty: 'RSA', kid: thumbprint, alg: 'RS256', use: 'sig' },
  };
}

function writeAtomic(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, path);
}

function live(file: KeyFile, now: Date): KeyFile {
  return { keys: file.keys.filter((k) => k.expiresAt === null || Date.parse(k.expiresAt) > now.getTime()) };
}

function validate(file: unknown, path: string): KeyFile {
  const keys = (file as KeyFile | null)?.keys;
  if (!Array.isArray(keys) || keys.filter((k) => k.retiredAt === null).length !== 1) {
    throw new Error(`${path} must hold exactly one current key (retiredAt null)`);
  }
  return { keys };
}

/** Reads the key file, creating it with one fresh key when absent. Expired keys are left out of the result. */
export function loadKeys(stateDir: string, now = new Date()): KeyFile {
  const path = join(stateDir, KEYS_FILE);
  if (!existsSync(path)) {
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    const file: KeyFile = { keys: [newKey(now)] };
    writeAtomic(path, JSON.stringify(file, null, 2));
    return file;
  }
  return live(validate(JSON.parse(readFileSync(path, 'utf8')), path), now);
}

/** Adds a new current key; the previous current key stays in the JWKS for `graceSeconds`. */
export function rotateKeys(
  stateDir: string,
  graceSeconds: number,
  now = new Date(),
): { current: StoredKey; retired: StoredKey[] } {
  const file = loadKeys(stateDir, now);
  const expiresAt = new Date(now.getTime() + graceSeconds * 1000).toISOString();
  const previous = file.keys.map((k) => (k.retiredAt === null ? { ...k, retiredAt: now.toISOString(), expiresAt } : k));
  const current = newKey(now);
  const next: KeyFile = { keys: [current, ...previous] };
  writeAtomic(join(stateDir, KEYS_FILE), JSON.stringify(next, null, 2));
  return { current, retired: previous };
}

/** Keys in signing order: the current key first (oidc-provider signs with the first key of an algorithm). */
export function signingOrder(file: KeyFile): StoredKey[] {
  return [...file.keys].sort((a, b) => (a.retiredAt === null ? -1 : b.retiredAt === null ? 1 : 0));
}

export function currentKey(file: KeyFile): StoredKey {
  const key = file.keys.find((k) => k.retiredAt === null);
  if (!key) throw new Error('no current signing key');
  return key;
}

/** The earliest instant a retired key leaves the JWKS, if any. */
export function nextExpiry(file: KeyFile): number | undefined {
  const times = file.keys.flatMap((k) => (k.expiresAt === null ? [] : [Date.parse(k.expiresAt)]));
  return times.length === 0 ? undefined : Math.min(...times);
}

/** A secret persisted in the state folder, generated on first use (cookie keys, the gateway client secret). */
export function persistedSecret(stateDir: string, name: string): string {
  const path = join(stateDir, name);
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const secret = randomBytes(32).toString('base64url');
  writeAtomic(path, secret + '\n');
  return secret;
}
