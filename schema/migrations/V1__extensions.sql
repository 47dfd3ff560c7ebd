-- Extensions the schema stands on: pgvector for embeddings, Apache AGE for the graph.
CREATE EXTENSION IF NOT EXISTS vector;
CREATE EXTENSION IF NOT EXISTS age;
