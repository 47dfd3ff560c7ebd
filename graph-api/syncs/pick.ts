/** Which sync an impact or diff request reads: by id, the newest completed one holding a file, or of a source. */
import { FailedPreconditionError, NotFoundError } from '../../lib/errors.ts';
import type { ReadTx } from '../db/read.ts';
import type { SnapshotSync } from '../graph/snapshot.ts';

export interface SyncRow extends SnapshotSync {
  created_at: Date;
}

const COLUMNS = 's.id, s.source_id, s.status, s.completed_at, s.created_at';

/** The sync with this id; 404 naming it (and the parameter it came from) when unknown. */
export async function syncById(tx: ReadTx, id: string, field: string): Promise<SyncRow> {
  const res = await tx.query<SyncRow>(`SELECT ${COLUMNS} FROM sync_runs s WHERE s.id = $1`, [id]);
  const row = res.rows[0];
  if (!row) throw new NotFoundError('sync', `${id} (${field})`);
  return row;
}

/** The newest completed sync of the source that contains the file (as node detail picks it). */
export async function latestSyncWithFile(tx: ReadTx, sourceId: string, filePath: string): Promise<SyncRow | undefined> {
  const res = await tx.query<SyncRow>(
    // Newest first, each sync probed for the path until one holds it (as node-queries.ts FILE_LATEST: one probe, not
    // one record per kept sync).
    `SELECT ${COLUMNS}
       FROM (SELECT ${COLUMNS} FROM sync_runs s
              WHERE s.source_id = $1 AND s.status = 'completed'
                AND NOT EXISTS (SELECT 1 FROM pull_request_syncs p WHERE p.sync_id = s.id)
              ORDER BY s.created_at DESC, s.id DESC) s
      CROSS JOIN LATERAL (SELECT 1 FROM sync_files f WHERE f.sync_id = s.id AND f.file_path = $2 LIMIT 1) f
      LIMIT 1`,
    [sourceId, filePath],
  );
  return res.rows[0];
}

/** The source's newest completed sync, or the newest one created before `before`. */
export async function latestCompletedSync(
  tx: ReadTx,
  sourceId: string,
  before?: SyncRow,
): Promise<SyncRow | undefined> {
  const res = before
    ? await tx.query<SyncRow>(
        `SELECT ${COLUMNS} FROM sync_runs s
          WHERE s.source_id = $1 AND s.status = 'completed' AND (s.created_at, s.id) < ($2, $3)
            AND NOT EXISTS (SELECT 1 FROM pull_request_syncs p WHERE p.sync_id = s.id)
          ORDER BY s.created_at DESC, s.id DESC LIMIT 1`,
        [sourceId, before.created_at, before.id],
      )
    : await tx.query<SyncRow>(
        `SELECT ${COLUMNS} FROM sync_runs s WHERE s.source_id = $1 AND s.status = 'completed'
            AND NOT EXISTS (SELECT 1 FROM pull_request_syncs p WHERE p.sync_id = s.id)
          ORDER BY s.created_at DESC, s.id DESC LIMIT 1`,
        [sourceId],
      );
  return res.rows[0];
}

/** A cleaned sync has no graph left to walk or compare: 409 rather than an empty answer that would mislead. */
export function requireGraph(sync: SyncRow): void {
  if (sync.status === 'cleaned') {
    throw new FailedPreconditionError(`sync ${sync.id} was cleaned: its graph data is gone`, { sync_id: sync.id });
  }
}
