-- One model call per file at a time across graph processes, without holding a database connection over the call:
-- a summary claims a lease row (INSERT, or take over an expired one), calls the model with no connection held, stores
-- the description and deletes its lease. Others that find a live lease poll, connection-free, for the description.
-- Leases of a crashed process expire on their own (expires_at); no foreign key, so deletes of syncs never wait on it.
CREATE TABLE summary_leases (
  file_id uuid PRIMARY KEY,
  holder text NOT NULL,
  expires_at timestamptz NOT NULL
);
