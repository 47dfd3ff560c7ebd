/** The graph component's response shapes as the tests read them (see graph-api/openapi.ts). */
import type { Graph, Stats } from '../../lib/api/routes/graph.ts';
import type { FileText } from '../../lib/api/routes/nodes.ts';
import type { Source } from '../../lib/api/routes/sources.ts';
import type { Issue } from '../../lib/api/routes/syncs.ts';
import type { Schedule, Sync } from '../../lib/api/schemas.ts';

export interface ErrorBody {
  error: { code: string; message: string; field?: string; details?: Record<string, unknown> };
}

/** Sources, syncs, issues and schedules as their declarations type them (lib/api/routes/, lib/api/schemas.ts). */
export type { Page } from '../../lib/api/schemas.ts';
export type SourceBody = Source;
export type SyncBody = Sync;
export type IssueBody = Issue;
export type ScheduleBody = Schedule;

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

export type FileBody = FileText;

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
