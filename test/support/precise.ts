/**
 * The precise tier's checks, shared by test/pipeline/precise.test.ts (fixtures) and bench/precise-real.ts (real
 * repositories): the symbol edges a sync stored, read back from the graph by `<path>#<key>` refs, and a direct
 * reading of an indexer's output on a checkout (the indexer run here, its index read and derived with the sync's own
 * symbol facts), which the stored scip edges must equal.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Queryable } from '../../lib/db.ts';
import { loadSymbolFacts } from '../../activities/store/index.ts';
import { INDEXER_LANGUAGES, runIndexer, type PreciseLanguage } from '../../activities/precise/indexers.ts';
import { readScipIndex } from '../../engine/precise/scip.ts';
import { derivePrecise, type PreciseResult } from '../../engine/precise/derive.ts';
import type { EngineDefinition } from '../../engine/precise/edges.ts';

export interface StoredSymbolEdge {
  label: string;
  from: string;
  to: string;
  provenance: string;
  confidence: number;
  lines: number[];
  count: number;
  /** The target Symbol's kind (function, method, class, ...). */
  toKind: string;
}

const byKey = (x: StoredSymbolEdge, y: StoredSymbolEdge) =>
  `${x.label} ${x.from} ${x.to}` < `${y.label} ${y.from} ${y.to}` ? -1 : 1;

/** A sync's symbol edges (of the graph it shares, if it shares one: V50), read back as `<path>#<key>` pairs, sorted. */
export async function storedSymbolEdges(db: Queryable, syncId: string): Promise<StoredSymbolEdge[]> {
  const out: StoredSymbolEdge[] = [];
  for (const label of ['calls', 'references', 'inherits', 'implements', 'overrides']) {
    const r = await db.query<{ a: string; ak: string; b: string; bk: string; kind: string; p: string }>(
      `SELECT fa.properties ->> '"file_path"'::ag_catalog.agtype AS a, sa.properties ->> '"key"'::ag_catalog.agtype AS ak,
              fb.properties ->> '"file_path"'::ag_catalog.agtype AS b, sb.properties ->> '"key"'::ag_catalog.agtype AS bk,
              sb.properties ->> '"kind"'::ag_catalog.agtype AS kind,
              ag_catalog.agtype_out(e.properties)::text AS p
         FROM service."${label}" e
         JOIN service."Symbol" sa ON sa.id = e.start_id JOIN service.defines da ON da.end_id = sa.id
         JOIN service."File" fa ON fa.id = da.start_id
         JOIN service."Symbol" sb ON sb.id = e.end_id JOIN service.defines db ON db.end_id = sb.id
         JOIN service."File" fb ON fb.id = db.start_id
        WHERE ag_catalog.agtype_access_operator(fa.properties, '"sync_id"'::ag_catalog.agtype)
              = ('"' || graph_sync_of($1::uuid)::text || '"')::ag_catalog.agtype`,
      [syncId],
    );
    for (const row of r.rows) {
      const p = JSON.parse(row.p) as { provenance: string; confidence: number; lines?: number[]; count: number };
      out.push({
        label,
        from: `${row.a}#${row.ak}`,
        to: `${row.b}#${row.bk}`,
        provenance: p.provenance,
        confidence: p.confidence,
        lines: p.lines ?? [],
        count: p.count,
        toKind: row.kind,
      });
    }
  }
  return out.sort(byKey);
}

/** The engine's definitions of a sync's files of one indexer's languages (the sync's stored symbol facts). */
export async function syncDefinitions(
  db: Queryable,
  syncId: string,
  language: PreciseLanguage,
): Promise<Map<string, EngineDefinition[]>> {
  const facts = await loadSymbolFacts(db, syncId);
  const defs = new Map<string, EngineDefinition[]>();
  for (const f of facts)
    if (INDEXER_LANGUAGES[language].includes(f.language))
      defs.set(
        f.file_path,
        f.facts.defs.map((d) => ({
          key: d.key,
          name: d.name,
          kind: d.symbol_kind,
          line: d.line,
          end_line: d.end_line,
        })),
      );
  return defs;
}

/**
 * What the indexer itself says about the checkout at `root` (run here, within the given limits), in the sync's
 * symbols: its index read and derived with the sync's own symbol facts. Throws when the indexer fails.
 */
export async function directReading(
  db: Queryable,
  syncId: string,
  language: PreciseLanguage,
  root: string,
  bin: string,
  opts: { wallMs?: number; memoryMb?: number; goCacheDir?: string } = {},
): Promise<PreciseResult & { indexerMs: number }> {
  const defs = await syncDefinitions(db, syncId, language);
  const scratch = mkdtempSync(join(tmpdir(), 'ckg-precise-direct-'));
  try {
    const output = join(scratch, 'index.scip');
    const run = await runIndexer({
      language,
      bin,
      root,
      output,
      scratch,
      limits: { wallMs: opts.wallMs ?? 120_000, memoryMb: opts.memoryMb ?? 2048 },
      allowDependencies: false,
      version: 'direct',
      project: 'direct',
      ...(opts.goCacheDir ? { goCacheDir: opts.goCacheDir } : {}),
    });
    if (!run.ok) throw new Error(`${language} indexer failed (${run.failure}): ${run.tail}`);
    const lines = new Map<string, string[] | null>();
    const linesOf = (p: string) => {
      if (!lines.has(p)) {
        try {
          lines.set(p, readFileSync(join(root, p), 'utf8').split('\n'));
        } catch {
          lines.set(p, null);
        }
      }
      return lines.get(p) ?? null;
    };
    return { ...derivePrecise(readScipIndex(readFileSync(output)), defs, linesOf), indexerMs: run.ms };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** A derived result's edges in the stored shape (target kind left out), sorted: what the stored scip edges equal. */
export function expectedEdges(result: PreciseResult): Array<Omit<StoredSymbolEdge, 'toKind'>> {
  return result.edges
    .map((e) => ({
      label: e.label,
      from: e.from,
      to: e.to,
      provenance: e.provenance,
      confidence: e.confidence,
      lines: e.lines ?? [],
      count: e.count,
    }))
    .sort((x, y) => (`${x.label} ${x.from} ${x.to}` < `${y.label} ${y.from} ${y.to}` ? -1 : 1));
}
