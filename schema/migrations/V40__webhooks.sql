-- Webhooks from the code hosts (issue 33; docs/webhooks.md): per-source secrets, deliveries seen, pending follow-up
-- syncs, and the pull/merge-request syncs.

-- The secret a code host signs its deliveries with (GitHub/Gitea: HMAC-SHA256 key; GitLab: the X-Gitlab-Token value).
-- Apart from sources, like access tokens: no read of sources can return it.
CREATE TABLE source_webhook_secrets (
  source_id uuid PRIMARY KEY REFERENCES sources (id) ON DELETE CASCADE,
  secret text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Every verified delivery, by the host's delivery id: a repeated id is acknowledged and ignored. Pruned by age.
CREATE TABLE webhook_deliveries (
  provider text NOT NULL,
  delivery_id text NOT NULL,
  source_id uuid REFERENCES sources (id) ON DELETE CASCADE,
  event text NOT NULL,
  outcome text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, delivery_id)
);
CREATE INDEX webhook_deliveries_received ON webhook_deliveries (received_at);

-- Syncs asked for by deliveries and not started yet: one row per (source, ref), the newest request winning. A push
-- that arrives while the source has an active sync waits here; the ingestion component's sweeper starts it once the
-- source is idle and the pushes have paused (docs/webhooks.md "Coalescing").
CREATE TABLE sync_followups (
  source_id uuid NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
  ref text NOT NULL,
  commit_sha text,
  pr_number integer,
  base_ref text,
  provider text NOT NULL,
  trigger text NOT NULL,
  -- Bumped by every request, so a sweeper that started a sync for an older version leaves the newer one queued.
  version bigint NOT NULL DEFAULT 1,
  first_requested_at timestamptz NOT NULL DEFAULT now(),
  requested_at timestamptz NOT NULL DEFAULT now(),
  claimed_until timestamptz,
  PRIMARY KEY (source_id, ref)
);

-- A sync of a pull/merge request's head: its number, base branch and head commit. Such a sync is a review snapshot:
-- it never becomes its source's last sync, and the reads that default to "the latest completed sync" skip it.
CREATE TABLE pull_request_syncs (
  sync_id uuid PRIMARY KEY REFERENCES sync_runs (id) ON DELETE CASCADE,
  source_id uuid NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
  provider text NOT NULL,
  pr_number integer NOT NULL,
  base_ref text NOT NULL,
  head_commit text,
  closed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pull_request_syncs_pr ON pull_request_syncs (source_id, pr_number, created_at DESC);
