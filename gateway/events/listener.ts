/**
 * One dedicated connection that LISTENs on service_sse. When the connection is lost it reconnects with jittered
 * exponential backoff (100 ms doubling to 5 s, times 0.5-1.5) and reports `onConnected` again, so the hub re-reads
 * every row after the last id it sent: notifications missed while disconnected cost nothing.
 */
import pg from 'pg';
import { EVENT_CHANNEL } from '../../lib/events.ts';
import type { Logger } from '../../lib/log.ts';

export interface ListenerHandlers {
  /** After LISTEN is active (first time and after every reconnect). */
  onConnected(client: pg.Client, reconnect: boolean): Promise<void>;
  onNotify(payload: string | undefined): void;
}

export interface EventListener {
  start(): void;
  stop(): Promise<void>;
  /** The backend pid of the current connection (operators; tests kill it). */
  readonly pid: number | undefined;
}

export function createListener(connectionString: string, handlers: ListenerHandlers, log: Logger): EventListener {
  let client: pg.Client | undefined;
  let pid: number | undefined;
  let stopped = false;
  let failures = 0;
  let everConnected = false;
  let timer: NodeJS.Timeout | undefined;

  const schedule = () => {
    if (stopped || timer) return;
    const base = Math.min(5000, 100 * 2 ** Math.min(failures, 10));
    const delay = Math.round(base * (0.5 + Math.random()));
    failures++;
    timer = setTimeout(() => {
      timer = undefined;
      void connect();
    }, delay);
  };

  const connect = async () => {
    const c = new pg.Client({ connectionString, application_name: 'ckg-gateway-sse-listener' });
    let lost = false;
    const onLost = (err?: Error) => {
      if (lost) return;
      lost = true;
      if (client === c) {
        client = undefined;
        pid = undefined;
      }
      c.removeAllListeners('notification');
      c.end().catch(() => undefined);
      if (!stopped) {
        log.warning('sse_listener_lost', { error: err ?? 'connection ended' });
        schedule();
      }
    };
    c.on('error', onLost);
    c.on('end', () => onLost());
    try {
      await c.connect();
      c.on('notification', (n) => {
        if (n.channel === EVENT_CHANNEL) handlers.onNotify(n.payload);
      });
      await c.query(`LISTEN ${EVENT_CHANNEL}`);
      const r = await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      if (stopped || lost) {
        await c.end().catch(() => undefined);
        return;
      }
      client = c;
      pid = r.rows[0]?.pid;
      const reconnect = everConnected;
      everConnected = true;
      await handlers.onConnected(c, reconnect);
      failures = 0;
      log.info(reconnect ? 'sse_listener_reconnected' : 'sse_listener_connected', { pid });
    } catch (err) {
      onLost(err instanceof Error ? err : new Error(String(err)));
    }
  };

  return {
    start: () => void connect(),
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      const c = client;
      client = undefined;
      if (c) await c.end().catch(() => undefined);
    },
    get pid() {
      return pid;
    },
  };
}
