/** The graph component's response shapes as the tests read them (see graph-api/openapi.ts). */
import type { Graph, Stats } from '../../lib/api/routes/graph.ts';

export interface ErrorBody {
  error: { code: string; message: string; field?: string; details?: Record<string, unknown> };
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export interface SourceBody {
  id: string;
  source_type: string;
  owner: string;
  name: string;
  url: string | null;
  default_branch: string;
  config: Record<string, unknown>;
  enabled: boolean;
  last_sync_id: string | null;
  last_synced_at: string | null;
  meta: Record<string, unknown>;
  has_access_token: boolean;
  created_at: string;
  updated_at: string;
}

export interface SyncBody {
  id: string;
  source_id: string;
  status: string;
  schedule_id: number | null;
  created_at: string;
  [k: string]: unknown;
}

export interface IssueBody {
  id: number;
  sync_id: string;
  level: string;
  phase: string;
  code: string;
  message: string;
}

export interface ScheduleBody {
  id: number;
  source_id: string;
  interval_minutes: number;
  enabled: boolean;
}

/** The merged graph (lib/api/routes/graph.ts). */
export type GraphBody = Graph;
export type GraphNode = Graph['nodes'][number];
export type GraphEdge = Graph['edges'][number];

export interface NeighborBody {
  node_id: string;
  name: string;
  rel_type: string;
  weight: number;
  direction: 'in' | 'out';
  label: string;
  kind?: string;
  line?: number;
}

export interface NodeBody {
  node: {
    id: string;
    name: string;
    type: string;
    language: string;
    size_bytes: number;
    line_count: number;
    description: string | null;
    imports_count: number;
    content_hash: string;
    sync_id: string;
    file_path: string;
  };
  neighbors: NeighborBody[];
}

export interface FileBody {
  node_id: string;
  sync_id: string;
  content: string;
  chunk_count: number;
  truncated: boolean;
}

export interface SummaryBody {
  node_id: string;
  sync_id: string;
  file_id: string;
  source: 'cache' | 'llm' | 'no_content' | 'llm_failed';
  summary: string | null;
  generated_at: string | null;
  model?: string;
  attempts?: number;
  error?: string;
}

export type StatsBody = Stats;

export interface SearchBody {
  results: Array<{
    id: string;
    name: string;
    type: string;
    language: string;
    description: string | null;
    distance: number;
    sync_id: string;
  }>;
}
