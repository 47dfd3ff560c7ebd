/**
 * The step ledger (table sync_steps, V17): a step that writes records its result in the same transaction, so a
 * repeated step returns the recorded result instead of writing twice. Step names: `write <batch, 4 digits>`,
 * `resolve`, `symbols`.
 */
import type { PoolClient, Queryable } from '../../lib/db.ts';

export const writeStep = (batch: number) => `write ${String(batch).padStart(4, '0')}`;
export const RESOLVE_STEP = 'resolve';
/** The symbol graph (issue 28): edges and unresolved uses; its hand-off holds the resolver's stats. */
export const SYMBOLS_STEP = 'symbols';

export async function recordedResult<T>(db: Queryable, syncId: string, step: string): Promise<T | null> {
  const r = await db.query<{ result: T }>(`SELECT result FROM sync_steps WHERE sync_id = $1 AND step = $2`, [
    syncId,
    step,
  ]);
  return r.rows[0]?.result ?? null;
}

export async function recordStep(
  tx: PoolClient,
  syncId: string,
  step: string,
  result: unknown,
  handoff: unknown = null,
): Promise<void> {
  await tx.query(`INSERT INTO sync_steps (sync_id, step, result, handoff) VALUES ($1, $2, $3, $4)`, [
    syncId,
    step,
    JSON.stringify(result),
    handoff === null ? null : JSON.stringify(handoff),
  ]);
}

/** Records a step's result unless one is recorded already (the first of concurrent writers wins). */
export async function recordStepOnce(db: Queryable, syncId: string, step: string, result: unknown): Promise<void> {
  await db.query(
    `INSERT INTO sync_steps (sync_id, step, result) VALUES ($1, $2, $3) ON CONFLICT (sync_id, step) DO NOTHING`,
    [syncId, step, JSON.stringify(result)],
  );
}

/**
 * A transaction client whose every statement runs under a savepoint, so the store writers' per-row fallback (a
 * batch statement fails, its rows are retried one by one) works inside one transaction: a failed statement rolls
 * back to its savepoint instead of aborting the transaction.
 */
export function withSavepoints(tx: PoolClient): PoolClient {
  const wrapped = Object.create(tx) as PoolClient;
  const query = async (text: string, values?: unknown[]) => {
    await tx.query('SAVEPOINT step_statement');
    try {
      const r = await tx.query(text, values);
      await tx.query('RELEASE SAVEPOINT step_statement');
      return r;
    } catch (err) {
      await tx.query('ROLLBACK TO SAVEPOINT step_statement');
      throw err;
    }
  };
  wrapped.query = query as unknown as PoolClient['query'];
  return wrapped;
}
