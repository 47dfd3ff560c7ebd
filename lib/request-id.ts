/**
 * The request id that ties one call's log lines together across the gateway and the components. The gateway takes
 * the caller's `X-Request-Id` when it is a plausible id (1-128 characters of letters, digits and `._:-`), else makes
 * a UUID; it forwards the id upstream and returns it on every response. The graph and ingestion components do the
 * same with the id the gateway sent them (so a direct call gets one too).
 *
 * While a request is handled its id is in an AsyncLocalStorage: every log line written in its asynchronous context,
 * by any module, carries `request_id` (lib/log.ts reads it), without passing a logger down every call.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

export const REQUEST_ID_HEADER = 'X-Request-Id';

const VALID = /^[A-Za-z0-9._:-]{1,128}$/;
const storage = new AsyncLocalStorage<string>();

/** The caller's id when it is acceptable, else a new one. */
export function acceptRequestId(given: string | undefined): string {
  return given !== undefined && VALID.test(given) ? given : randomUUID();
}

/** Runs `fn` with `id` as the current request id. */
export function withRequestId<T>(id: string, fn: () => T): T {
  return storage.run(id, fn);
}

/** The id of the request being handled in this asynchronous context, if any. */
export function currentRequestId(): string | undefined {
  return storage.getStore();
}
