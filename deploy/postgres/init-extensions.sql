-- Runs once when the data volume is new: the service's database (the graph component migrates it at start-up)
-- and Temporal's two databases on the same server.
CREATE DATABASE ckg;
CREATE DATABASE temporal;
CREATE DATABASE temporal_visibility;
\connect ckg
CREATE EXTENSION IF NOT EXISTS vector;
CREATE EXTENSION IF NOT EXISTS age;
