/**
 * The gateway step of the harness: SSE_CLIENTS (200) clients on GET /api/events through the gateway (real token from
 * the identity provider), events flowing (a sync of the corpus and a steady stream of source PATCHes), kill -9 of the
 * gateway, restart; every client reconnects with `Last-Event-ID` = the last id it saw. Invariant: every client holds
 * every event id written from its start to the end, each exactly once (no gap, no duplicate).
 */
import { connectSse, type Frame, type SseClient } from '../../test/support/sse-client.ts';
import { URLS, db, gatewayToken, http, kill9, log, sleep, stack, startSync, waitEnd } from './common.ts';
import type { StepResult } from './faults.ts';

/** One resuming client: reconnects with Last-Event-ID whenever its stream ends, until stopped. */
class Follower {
  readonly ids: number[] = [];
  /** Rows delivered late (a transaction that committed after a later id was sent): a frame without `id:`. */
  readonly lateIds: number[] = [];
  connects = 0;
  refused = 0;
  #client: SseClient | undefined;
  #stopped = false;
  #loop: Promise<void> | undefined;
  constructor(
    private readonly url: string,
    private readonly auth: string,
    private lastId: number,
  ) {}

  start(): Promise<void> {
    let firstOpen!: () => void;
    const opened = new Promise<void>((r) => (firstOpen = r));
    this.#loop = (async () => {
      while (!this.#stopped) {
        let c: SseClient;
        try {
          c = await connectSse(this.url, { authorization: this.auth, 'last-event-id': String(this.lastId) });
        } catch {
          await sleep(200 + Math.random() * 300);
          continue;
        }
        if (c.status !== 200) {
          this.refused++;
          c.close();
          await sleep(200 + Math.random() * 300);
          continue;
        }
        this.connects++;
        this.#client = c;
        firstOpen();
        // Frames are read from c.frames, not through onFrame: a catch-up can arrive in the same read as the
        // headers, before this code runs again.
        let k = 0;
        const take = () => {
          for (; k < c.frames.length; k++) this.#take(c.frames[k]!);
        };
        while (!c.ended && !this.#stopped) {
          take();
          await sleep(50);
        }
        take();
        c.close();
      }
    })();
    return opened;
  }

  #take(f: Frame): void {
    if (f.event === undefined || f.event === 'error') return;
    if (f.id === undefined) {
      this.lateIds.push((JSON.parse(f.data ?? '{}') as { id: number }).id);
      return;
    }
    const id = Number(f.id);
    this.ids.push(id);
    this.lastId = id;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#client?.close();
    await this.#loop;
  }
}

const maxEventId = async () =>
  Number((await db.query<{ n: string | null }>(`SELECT max(id)::text AS n FROM events`)).rows[0]!.n ?? 0);

export async function killGatewaySse(sourceId: string, clients: number, round: number): Promise<StepResult> {
  const auth = `Bearer ${await gatewayToken()}`;
  const from = await maxEventId();
  const followers = Array.from({ length: clients }, () => new Follower(`${URLS.gateway}/api/events`, auth, from));
  for (let i = 0; i < followers.length; i += 50) await Promise.all(followers.slice(i, i + 50).map((f) => f.start()));
  // Events: the sync's own, plus a source PATCH every 50 ms (source_changed) so events flow across the kill.
  let writing = true;
  let patches = 0;
  const writer = (async () => {
    while (writing) {
      const r = await http('PATCH', `${URLS.graph}/api/sources/${sourceId}`, { meta: { sse_probe: patches } });
      if (r.status === 200) patches++;
      await sleep(50);
    }
  })();
  const syncId = await startSync(sourceId);
  await sleep(1000 + Math.random() * 3000);
  kill9('gateway');
  const killedAt = await maxEventId();
  log(`sse #${round}: kill -9 gateway with ${clients} clients connected (events ${from + 1}..${killedAt} so far)`);
  await sleep(1000);
  stack('processes');
  const end = await waitEnd(syncId, 300_000);
  await sleep(2000);
  writing = false;
  await writer;
  const to = await maxEventId();
  // Give the clients time to catch up to the last id, then stop them.
  const until = Date.now() + 30_000;
  while (Date.now() < until && followers.some((f) => (f.ids.at(-1) ?? from) < to)) await sleep(200);
  await Promise.all(followers.map((f) => f.stop()));

  const expected = (
    await db.query<{ id: string }>(`SELECT id::text AS id FROM events WHERE id > $1 AND id <= $2 ORDER BY id`, [
      from,
      to,
    ])
  ).rows.map((r) => Number(r.id));
  let gaps = 0;
  let dups = 0;
  let unordered = 0;
  let shown = 0;
  for (const f of followers) {
    const seen = new Set<number>();
    for (let i = 0; i < f.ids.length; i++) {
      const id = f.ids[i]!;
      if (seen.has(id)) dups++;
      seen.add(id);
      if (i > 0 && id <= f.ids[i - 1]!) unordered++;
    }
    for (const id of f.lateIds) {
      if (seen.has(id)) dups++;
      seen.add(id);
    }
    const missing = expected.filter((id) => !seen.has(id));
    gaps += missing.length;
    if (missing.length > 0 && shown++ < 3)
      log(
        `  client missing ${missing.length}: ${missing.slice(0, 12).join(',')}; connects ${f.connects}; got ${f.ids.length} ids, ${f.ids.slice(0, 5).join(',')} .. ${f.ids.slice(-5).join(',')}`,
      );
  }
  const reconnected = followers.filter((f) => f.connects >= 2).length;
  const late = followers.reduce((n, f) => n + f.lateIds.length, 0);
  const ok = gaps === 0 && dups === 0 && unordered === 0 && reconnected === clients;
  return {
    step: `kill -9 gateway with ${clients} SSE clients #${round}`,
    ok,
    detail: `${expected.length} events (${patches} patches + the sync, run ${end.status}); ${reconnected}/${clients} clients resumed; missing ${gaps}, duplicates ${dups}, out of order ${unordered}, late frames ${late}`,
  };
}
