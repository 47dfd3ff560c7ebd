/**
 * The answer of GET /api/graph/pr (graph-api/analysis/pr-report.ts), written once as a schema: the read builds it,
 * the document shows it, the MCP tool pr_report and `ckg pr` read its type (docs/webhooks.md "The PR report").
 */
import { z } from 'zod';
import { timestamp, uuid } from './schemas.ts';

const counted = () => z.object({ direct: z.int(), total: z.int() });

export const PrSymbol = z.object({
  name: z.string(),
  kind: z.string(),
  line: z.int(),
  key: z.string().optional().describe("The symbol's stable key, when its content was analysed with keys."),
  symbol_id: z.string().optional().describe('Its address `src_<source>:<path>#<key>` (with key).'),
  callers: counted()
    .extend({ status: z.enum(['exact', 'lower_bound']) })
    .optional()
    .describe('Changed and removed symbols: their callers in the base sync (transitive to depth 3).'),
});
export type PrSymbol = z.infer<typeof PrSymbol>;

const symbolLists = () =>
  z.object({ added: z.array(PrSymbol), removed: z.array(PrSymbol), changed: z.array(PrSymbol) });

export const PrFile = z.object({
  node_id: z.string(),
  file_path: z.string(),
  change: z.enum(['added', 'removed', 'changed']),
  sync_id: uuid().describe('The sync holding this version of the file (the head, or the base for a removed file).'),
  detail: z.string().describe('Node detail of the file in that sync.'),
  dependents: counted(),
  symbols: symbolLists(),
  risk: z.number(),
});
export type PrFile = z.infer<typeof PrFile>;

export const PrEdge = z.object({ source: z.string(), target: z.string() });
export type PrEdge = z.infer<typeof PrEdge>;

export const PrReport = z
  .object({
    source_id: uuid(),
    pr: z.object({
      number: z.int(),
      provider: z.string(),
      base_ref: z.string(),
      head_commit: z.string().nullable(),
      closed: z.boolean(),
    }),
    head: z.object({ sync_id: uuid(), ref: z.string().nullable(), created_at: timestamp() }),
    base: z.object({ sync_id: uuid(), ref: z.string().nullable(), ref_matched: z.boolean(), created_at: timestamp() }),
    counts: z.object({
      files_added: z.int(),
      files_removed: z.int(),
      files_changed: z.int(),
      symbols_added: z.int(),
      symbols_removed: z.int(),
      symbols_changed: z.int(),
      edges_added: z.int(),
      edges_removed: z.int(),
      impacted_files: z.int(),
    }),
    truncated: z.boolean(),
    files: z.array(PrFile),
    impacted: z.array(z.object({ node_id: z.string(), file_path: z.string(), distance: z.int(), via: z.string() })),
    edges: z.object({ added: z.array(PrEdge), removed: z.array(PrEdge) }),
    query_ms: z.int(),
  })
  .meta({ id: 'PrReport' });
export type PrReport = z.infer<typeof PrReport>;
