/**
 * In-memory storage for oidc-provider (sessions, interactions, grants, codes, tokens). One store per IdP server,
 * shared by every Provider instance the server builds, so a key reload does not log anyone out.
 */
import type { Adapter, AdapterPayload } from 'oidc-provider';

interface Entry {
  payload: AdapterPayload;
  expiresAt: number | undefined;
}

export class MemoryStore {
  readonly #entries = new Map<string, Entry>();
  /** Secondary indexes: `uid:<uid>` and `userCode:<code>` → primary key; grant id → primary keys. */
  readonly #index = new Map<string, string>();
  readonly #byGrant = new Map<string, Set<string>>();

  get(key: string): AdapterPayload | undefined {
    const e = this.#entries.get(key);
    if (!e) return undefined;
    if (e.expiresAt !== undefined && e.expiresAt <= Date.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return e.payload;
  }

  set(key: string, payload: AdapterPayload, expiresIn: number | undefined): void {
    this.#entries.set(key, {
      payload,
      expiresAt: expiresIn === undefined ? undefined : Date.now() + expiresIn * 1000,
    });
    if (payload.uid !== undefined) this.#index.set(`uid:${payload.uid}`, key);
    if (payload.userCode !== undefined) this.#index.set(`userCode:${payload.userCode}`, key);
    if (payload.grantId !== undefined) {
      const set = this.#byGrant.get(payload.grantId) ?? new Set<string>();
      set.add(key);
      this.#byGrant.set(payload.grantId, set);
    }
  }

  lookup(indexKey: string): AdapterPayload | undefined {
    const key = this.#index.get(indexKey);
    return key === undefined ? undefined : this.get(key);
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  revokeGrant(grantId: string): void {
    for (const key of this.#byGrant.get(grantId) ?? []) this.#entries.delete(key);
    this.#byGrant.delete(grantId);
  }

  /** An adapter class for one model name (`Session`, `AccessToken`, ...), as oidc-provider's `adapter` option takes. */
  adapterFor(name: string): Adapter {
    const key = (id: string) => `${name}:${id}`;
    return {
      upsert: (id, payload, expiresIn) => {
        this.set(key(id), payload, expiresIn);
        return Promise.resolve();
      },
      find: (id) => Promise.resolve(this.get(key(id))),
      findByUid: (uid) => Promise.resolve(this.lookup(`uid:${uid}`)),
      findByUserCode: (code) => Promise.resolve(this.lookup(`userCode:${code}`)),
      consume: (id) => {
        const p = this.get(key(id));
        if (p) p.consumed = Math.floor(Date.now() / 1000);
        return Promise.resolve();
      },
      destroy: (id) => {
        this.delete(key(id));
        return Promise.resolve();
      },
      revokeByGrantId: (grantId) => {
        this.revokeGrant(grantId);
        return Promise.resolve();
      },
    };
  }
}
