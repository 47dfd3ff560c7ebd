/**
 * The summaries' rows: a file's stored description and the lease that lets one process at a time ask the model for
 * it (summary_leases). One statement per function.
 */
import type { Pool } from '../../lib/db.ts';

export interface CachedSummary {
  description: string | null;
  description_generated_at: Date | null;
}

export async function readSummary(pool: Pool, fileId: string): Promise<CachedSummary> {
  const r = await pool.query<CachedSummary>(
    `SELECT description, description_generated_at FROM file_records WHERE id = $1`,
    [fileId],
  );
  return r.rows[0] ?? { description: null, description_generated_at: null };
}

/** Takes the file's lease for `leaseMs` when nobody holds a live one; true when `holder` holds it now. */
export async function claimLease(pool: Pool, fileId: string, holder: string, leaseMs: number): Promise<boolean> {
  const r = await pool.query(
    `INSERT INTO summary_leases (file_id, holder, expires_at)
     VALUES ($1, $2, now() + make_interval(secs => $3::double precision / 1000))
     ON CONFLICT (file_id) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
       WHERE summary_leases.expires_at < now()
     RETURNING holder`,
    [fileId, holder, leaseMs],
  );
  return r.rowCount === 1;
}

export async function releaseLease(pool: Pool, fileId: string, holder: string): Promise<void> {
  await pool.query(`DELETE FROM summary_leases WHERE file_id = $1 AND holder = $2`, [fileId, holder]);
}

/** Stores the file's description; returns when it was generated (the database's clock). */
export async function saveSummary(pool: Pool, fileId: string, text: string): Promise<Date | undefined> {
  const saved = await pool.query<{ description_generated_at: Date }>(
    `UPDATE file_records SET description = $2, description_generated_at = now() WHERE id = $1
     RETURNING description_generated_at`,
    [fileId, text],
  );
  return saved.rows[0]?.description_generated_at;
}
