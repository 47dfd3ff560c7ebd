/**
 * The tests' one polling helper. A test that waits for something to become true (a row's status, a log line, a frame,
 * a port answering) polls it with `waitFor`: every wait has a bound and a name, and a failure says what was awaited.
 * A test never sleeps a fixed time to see that something did *not* happen: it waits for a later sentinel (an event
 * that comes after the one that must not, e.g. test/gateway/events.test.ts idsUpToSentinel). A test that waits for
 * time to pass injects a clock into the code under test instead (e.g. the docs cache, the Temporal gate).
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** A check: its value once it holds, else undefined, false or null (it may throw to give up at once). */
export type Check<T> = () => T | undefined | false | null | Promise<T | undefined | false | null>;

/**
 * Polls `check` every `everyMs` until it returns a value (not undefined, false or null) and returns that value, or
 * throws after `timeoutMs` naming `what` (a function is called only then: it may read logs gathered meanwhile).
 */
export async function waitFor<T>(
  what: string | (() => string),
  check: Check<T>,
  timeoutMs = 60_000,
  everyMs = 50,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false && v !== null) return v;
    if (Date.now() > until) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
    }
    await sleep(everyMs);
  }
}
