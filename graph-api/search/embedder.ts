/** What search needs from the embedding endpoint: one query vector. lib/embeddings.ts's EmbeddingClient fits. */
export interface QueryEmbedder {
  embedOne(text: string): Promise<number[]>;
}
