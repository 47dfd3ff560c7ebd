/** Small row builders for tests that need sources, syncs and files in a real database. */
import type { Queryable } from '../../lib/db.ts';

export async function insertSource(
  db: Queryable,
  owner = 'acme',
  name = `repo-${Math.random().toString(36).slice(2, 8)}`,
): Promise<string> {
  const r = await db.query<{ id: string }>(`INSERT INTO sources (owner, name, url) VALUES ($1, $2, $3) RETURNING id`, [
    owner,
    name,
    `https://example.invalid/${owner}/${name}.git`,
  ]);
  return r.rows[0]!.id;
}

export async function insertSync(db: Queryable, sourceId: string, status = 'completed'): Promise<string> {
  const r = await db.query<{ id: string }>(`INSERT INTO sync_runs (source_id, status) VALUES ($1, $2) RETURNING id`, [
    sourceId,
    status,
  ]);
  return r.rows[0]!.id;
}

export async function insertFile(db: Queryable, syncId: string, sourceId: string, path: string): Promise<string> {
  const r = await db.query<{ id: string }>(
    `INSERT INTO file_records (sync_id, source_id, file_path, name, type, language, content_hash)
     VALUES ($1, $2, $3, $4, 'source', 'typescript', repeat('a', 64)) RETURNING id`,
    [syncId, sourceId, path, path.split('/').pop()],
  );
  return r.rows[0]!.id;
}

/** Writes two File vertices, a Symbol, and depends_on + defines edges for one sync, through Cypher. */
export async function insertGraph(
  db: Queryable,
  syncId: string,
  sourceId: string,
  fileA: string,
  fileB: string,
): Promise<void> {
  const props = (o: Record<string, string | number>) =>
    '{' +
    Object.entries(o)
      .map(([k, v]) => `${k}: ${typeof v === 'number' ? v : `'${v}'`}`)
      .join(', ') +
    '}';
  const cypher = `CREATE (a:File ${props({ file_id: fileA, sync_id: syncId, source_id: sourceId, name: 'a', type: 'source', domain: '' })})
    -[:depends_on ${props({ sync_id: syncId, source_id: sourceId, weight: 1 })}]->
    (b:File ${props({ file_id: fileB, sync_id: syncId, source_id: sourceId, name: 'b', type: 'source', domain: '' })}),
    (a)-[:defines ${props({ sync_id: syncId, source_id: sourceId })}]->
    (:Symbol ${props({ symbol_id: `${fileA}:main`, file_id: fileA, sync_id: syncId, source_id: sourceId, name: 'main', kind: 'function', line: 1 })})`;
  await db.query(`SELECT * FROM cypher('service', $$ ${cypher} $$) AS (r agtype)`);
}

export async function graphCounts(db: Queryable, syncId?: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const label of ['"File"', '"Symbol"', 'depends_on', 'defines']) {
    const where = syncId
      ? `WHERE ag_catalog.agtype_access_operator(properties, '"sync_id"'::ag_catalog.agtype) = $1::text::ag_catalog.agtype`
      : '';
    const r = await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM service.${label} ${where}`,
      syncId ? [JSON.stringify(syncId)] : [],
    );
    out[label.replaceAll('"', '')] = Number(r.rows[0]!.n);
  }
  return out;
}

/** The Temporal schedule id a schedules row records (V49); a row inserted by SQL without one is `<prefix><id>`. */
export async function temporalIdOfSchedule(db: Queryable, prefix: string, id: number | string): Promise<string> {
  const r = await db.query<{ temporal_id: string | null }>(`SELECT temporal_id FROM schedules WHERE id = $1`, [id]);
  const row = r.rows[0];
  if (!row) throw new Error(`no schedule ${id}`);
  return row.temporal_id ?? `${prefix}${id}`;
}
