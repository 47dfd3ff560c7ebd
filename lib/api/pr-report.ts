/**
 * The answer of GET /api/graph/pr (graph-api/analysis/pr-report.ts), written once: the read builds it, the MCP tool
 * pr_report and `ckg pr` read it (docs/webhooks.md "The PR report").
 */

export interface PrSymbol {
  name: string;
  kind: string;
  line: number;
  /** The symbol's stable key and address (`src_<source>:<path>#<key>`), when its content was analysed with keys. */
  key?: string;
  symbol_id?: string;
  /** Changed and removed symbols: their callers in the base sync (transitive to depth 3). */
  callers?: { direct: number; total: number; status: 'exact' | 'lower_bound' };
}

export interface PrFile {
  node_id: string;
  file_path: string;
  change: 'added' | 'removed' | 'changed';
  /** The sync holding this version of the file (the head, or the base for a removed file). */
  sync_id: string;
  /** Node detail of the file in that sync. */
  detail: string;
  dependents: { direct: number; total: number };
  symbols: Record<'added' | 'removed' | 'changed', PrSymbol[]>;
  risk: number;
}

export interface PrEdge {
  source: string;
  target: string;
}

export interface PrReport {
  source_id: string;
  pr: { number: number; provider: string; base_ref: string; head_commit: string | null; closed: boolean };
  head: { sync_id: string; ref: string | null; created_at: string };
  base: { sync_id: string; ref: string | null; ref_matched: boolean; created_at: string };
  counts: {
    files_added: number;
    files_removed: number;
    files_changed: number;
    symbols_added: number;
    symbols_removed: number;
    symbols_changed: number;
    edges_added: number;
    edges_removed: number;
    impacted_files: number;
  };
  truncated: boolean;
  files: PrFile[];
  impacted: Array<{ node_id: string; file_path: string; distance: number; via: string }>;
  edges: { added: PrEdge[]; removed: PrEdge[] };
  query_ms: number;
}
