/**
 * The identity provider's signing keys, cached. The cache is ours (not jwks-rsa's) because the contract is specific:
 * - a set older than `ttlMs` keeps serving while one background refresh replaces it (stale-while-revalidate);
 * - a kid the set does not hold causes at most one refresh per `unknownKidIntervalMs`, awaited by that request;
 * - refreshes are single-flight: concurrent callers share one fetch;
 * - a failed refresh keeps the old set (logged), so a flapping provider does not lock everyone out.
 */
import { importJWK, type JWK } from 'jose';
import { UpstreamError } from '../../lib/errors.ts';
import type { Logger } from '../../lib/log.ts';

export type VerifyKey = Awaited<ReturnType<typeof importJWK>>;

export interface KeySetOptions {
  url: string;
  ttlMs: number;
  unknownKidIntervalMs: number;
  log: Logger;
  /** Milliseconds since the epoch; injectable so the cache ages without sleeping. */
  now?: () => number;
  fetchTimeoutMs?: number;
}

interface Loaded {
  keys: Map<string, VerifyKey>;
  fetchedAt: number;
}

export class KeySet {
  readonly #opts: Required<Omit<KeySetOptions, 'log'>> & { log: Logger };
  #loaded: Loaded | undefined;
  #inflight: Promise<Loaded> | undefined;
  #lastUnknownKidRefresh = Number.NEGATIVE_INFINITY;
  #refreshCount = 0;

  constructor(options: KeySetOptions) {
    this.#opts = { now: Date.now, fetchTimeoutMs: 5000, ...options };
  }

  /** How many times the set was fetched (for operators and tests). */
  get refreshCount(): number {
    return this.#refreshCount;
  }

  /**
   * The key for `kid`, or undefined when the provider does not list it (even after the allowed refresh).
   * Throws UpstreamError (503) only when no key set was ever loaded and the provider cannot be reached.
   */
  async get(kid: string): Promise<VerifyKey | undefined> {
    const now = this.#opts.now();
    let loaded = this.#loaded ?? (await this.#refresh('initial'));
    if (now - loaded.fetchedAt >= this.#opts.ttlMs) this.#background('expired');
    const key = loaded.keys.get(kid);
    if (key) return key;
    if (now - this.#lastUnknownKidRefresh < this.#opts.unknownKidIntervalMs) return undefined;
    this.#lastUnknownKidRefresh = now;
    try {
      loaded = await this.#refresh('unknown_kid');
    } catch {
      return undefined; // logged in #refresh; the old set stays
    }
    return loaded.keys.get(kid);
  }

  /**
   * Whether the current set holds `kid`, without waiting (a stale set starts its background refresh). Used to
   * re-admit an already verified token: a kid the provider dropped stops admitting it after the next refresh.
   */
  holds(kid: string): boolean {
    const loaded = this.#loaded;
    if (!loaded) return false;
    if (this.#opts.now() - loaded.fetchedAt >= this.#opts.ttlMs) this.#background('expired');
    return loaded.keys.has(kid);
  }

  /** Resolves once a key set is loaded (loading it now when none is); rejects when none can be (readiness). */
  async ensureLoaded(): Promise<void> {
    if (!this.#loaded) await this.#refresh('initial');
  }

  /** Loads the set now (start-up warm-up); failures are logged, not thrown. */
  async warm(): Promise<void> {
    try {
      await this.#refresh('initial');
    } catch {
      // logged in #refresh; the first request retries
    }
  }

  #background(reason: string): void {
    if (this.#inflight) return;
    this.#refresh(reason).catch(() => undefined); // logged in #refresh; the stale set keeps serving
  }

  #refresh(reason: string): Promise<Loaded> {
    this.#inflight ??= this.#fetch(reason).finally(() => {
      this.#inflight = undefined;
    });
    return this.#inflight;
  }

  async #fetch(reason: string): Promise<Loaded> {
    const started = this.#opts.now();
    let body: unknown;
    try {
      const res = await fetch(this.#opts.url, { signal: AbortSignal.timeout(this.#opts.fetchTimeoutMs) });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      body = await res.json();
    } catch (err) {
      this.#opts.log.warning('jwks_refresh_failed', { url: this.#opts.url, reason, error: err });
      if (this.#loaded) return this.#loaded;
      throw new UpstreamError('UPSTREAM_UNAVAILABLE', 'the identity provider key set cannot be fetched', {
        cause: err,
      });
    }
    const keys = new Map<string, VerifyKey>();
    const list = (body as { keys?: unknown }).keys;
    for (const jwk of Array.isArray(list) ? (list as JWK[]) : []) {
      if (typeof jwk !== 'object' || jwk === null) continue;
      if (jwk.kty !== 'RSA' || typeof jwk.kid !== 'string') continue;
      if (jwk.use !== undefined && jwk.use !== 'sig') continue;
      if (jwk.alg !== undefined && jwk.alg !== 'RS256') continue;
      try {
        keys.set(jwk.kid, await importJWK({ ...jwk, alg: 'RS256' }, 'RS256'));
      } catch (err) {
        this.#opts.log.warning('jwks_key_skipped', { kid: jwk.kid, error: err });
      }
    }
    this.#loaded = { keys, fetchedAt: this.#opts.now() };
    this.#refreshCount++;
    this.#opts.log.info('jwks_refreshed', {
      reason,
      keys: keys.size,
      kids: [...keys.keys()],
      ms: this.#opts.now() - started,
    });
    return this.#loaded;
  }
}
