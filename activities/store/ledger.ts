/**
 * The step ledger (table sync_steps, V17): a step that writes records its result in the same transaction, so a
 * repeated step returns the recorded result instead of writing twice. Step names: `write <batch, 4 digits>`,
 * `resolve`, `symbols`.
 */
import type { PoolClient, Queryable } from '../../lib/db.ts';
import type { ResolvedImport } from '../../engine/symbols/index.ts';

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

/**
 * What the write steps handed on (their ledger rows `write <batch>`), without the parts later steps do not read
 * here (embed_inputs, symbol_imports).
 */
export async function writeHandoffs<T>(db: Queryable, syncId: string): Promise<T[]> {
  const r = await db.query<{ handoff: T }>(
    `SELECT handoff - 'embed_inputs' - 'symbol_imports' AS handoff FROM sync_steps WHERE sync_id = $1 AND step LIKE 'write %'`,
    [syncId],
  );
  return r.rows.map((x) => x.handoff);
}

/** The sync's File vertices (id → path), from the write steps' hand-offs. */
export async function writtenFileVertices(db: Queryable, syncId: string): Promise<Map<string, string>> {
  const rows = await db.query<{ files: Array<[string, string]> | null }>(
    `SELECT handoff -> 'files' AS files FROM sync_steps WHERE sync_id = $1 AND step LIKE 'write %'`,
    [syncId],
  );
  const out = new Map<string, string>();
  for (const r of rows.rows) for (const [path, vertex] of r.files ?? []) out.set(vertex, path);
  return out;
}

/** The write steps' hand-off: the sync's File vertices (id -> path) and every file's import targets by path. */
export async function writtenFilesAndImports(
  db: Queryable,
  syncId: string,
): Promise<{ fileVertices: Map<string, string>; imports: Map<string, ResolvedImport[]> }> {
  const rows = await db.query<{
    handoff: { files?: Array<[string, string]>; symbol_imports?: Array<[string, ResolvedImport[]]> };
  }>(
    `SELECT jsonb_build_object('files', handoff -> 'files', 'symbol_imports', handoff -> 'symbol_imports')
            AS handoff
       FROM sync_steps WHERE sync_id = $1 AND step LIKE 'write %'`,
    [syncId],
  );
  const fileVertices = new Map<string, string>();
  const imports = new Map<string, ResolvedImport[]>();
  for (const { handoff } of rows.rows) {
    for (const [path, vertex] of handoff.files ?? []) fileVertices.set(vertex, path);
    for (const [path, list] of handoff.symbol_imports ?? []) imports.set(path, list);
  }
  return { fileVertices, imports };
}

/** The imports served their one purpose (the symbol graph); the hand-off keeps only what later steps read. */
export async function dropSymbolImports(db: Queryable, syncId: string): Promise<void> {
  await db.query(
    `UPDATE sync_steps SET handoff = handoff - 'symbol_imports'
      WHERE sync_id = $1 AND step LIKE 'write %' AND handoff ? 'symbol_imports'`,
    [syncId],
  );
}

/**
 * The `symbols` step of the previous sync this sync's reuse step names, when that sync is completed: its id, result
 * and hand-off.
 */
export async function previousSymbolsStep<T>(
  db: Queryable,
  syncId: string,
): Promise<{ id: string; result: T; handoff: unknown } | null> {
  const prev = await db.query<{ id: string; result: T; handoff: unknown }>(
    `SELECT p.sync_id AS id, p.result, p.handoff
       FROM sync_steps r
       JOIN sync_steps p ON p.sync_id = (r.result ->> 'previous_sync_id')::uuid AND p.step = $2
       JOIN sync_runs s ON s.id = p.sync_id AND s.status = 'completed'
      WHERE r.sync_id = $1 AND r.step = 'reuse'`,
    [syncId, SYMBOLS_STEP],
  );
  return prev.rows[0] ?? null;
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
