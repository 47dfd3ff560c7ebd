/** Row and graph writers of the sync pipeline (also used by tests and benchmarks to build real data). */
export { WRITE_BATCH, errorMessage, writeInBatches } from './batch.ts';
export { writeFileRecords, type FileWriteContext, type FileWriteResult } from './files.ts';
export { writeChunks, type FileChunks } from './chunks.ts';
export {
  writeGraph,
  writeFileGraph,
  writeDependsOn,
  loadGraphLabels,
  GRAPH_NAME,
  type DependingFile,
  type FileGraphResult,
  type GraphFile,
  type GraphLabels,
  type GraphWriteResult,
} from './graph.ts';
export {
  setFileEmbeddings,
  setChunkEmbeddings,
  setChunkKeyEmbeddings,
  missingVectors,
  filesWithoutVector,
  fileEmbedInputs,
  chunkVectorCounts,
  chunksWithoutVector,
  recountEmbeddingStats,
  type ChunkToEmbed,
  type EmbeddingPair,
} from './embeddings.ts';
export { recordIssues } from './issues.ts';
export {
  writeReusedFileRecords,
  dropSummaries,
  contentHashes,
  contentHashesById,
  describedPaths,
  syncFileRows,
  previousCompletedSync,
  previousFileRows,
  dependsOnByPath,
  type PreviousRow,
  type ReusedRow,
  type SyncFileRow,
} from './reused.ts';
export { writeReusedGraph, type ReusedGraphResult } from './reused-graph.ts';
export {
  writeSymbolFacts,
  loadSymbolFacts,
  loadSymbolFactsJson,
  symbolVertices,
  writeSymbolEdges,
  writeUnresolved,
  copySymbolGraph,
  sameFiles,
  type FactsRow,
  type StoredUnresolved,
  type SyncFileFacts,
  type SymbolEdgeWriteResult,
} from './symbols.ts';
export { SYMBOL_EDGE_LABELS, symbolVertexProperties, type SymbolEdgeLabelName } from './graph.ts';
