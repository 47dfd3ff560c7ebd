/** The webhook sweeper's shapes (followups.ts), apart so the component's deps can name them without a cycle. */

export interface SweeperSettings {
  quietMs: number;
  cooldownMs: number;
  maxWaitMs: number;
  intervalMs: number;
}

export interface Sweeper {
  /** Asks for a pass soon (after a delivery), without waiting for it. */
  kick(): void;
  stop(): Promise<void>;
}
