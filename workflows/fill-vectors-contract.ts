/** How the fill-vectors workflow is started (pure: imported by the workflow and by the ingestion component). */
export const FILL_VECTORS_WORKFLOW_TYPE = 'fillVectorsWorkflow';

/** One fill per sync at a time. */
export function fillVectorsWorkflowId(syncId: string): string {
  return `embed-${syncId}`;
}

export interface FillVectorsInput {
  syncId: string;
  sourceId: string;
}
