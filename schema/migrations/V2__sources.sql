-- Sources: repositories registered with the service. Upserted by (source_type, owner, name).
CREATE TABLE sources (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  source_type text NOT NULL DEFAULT 'github_repo',
  owner text NOT NULL,
  name text NOT NULL,
  url text,
  default_branch text NOT NULL DEFAULT 'main',
  config jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(config) = 'object'),
  enabled boolean NOT NULL DEFAULT true,
  last_sync_id uuid,
  last_synced_at timestamptz,
  meta jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(meta) = 'object'),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT sources_type_owner_name_key UNIQUE (source_type, owner, name)
);

CREATE FUNCTION touch_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.updated_at := now();
  RETURN NEW;
END $$;

CREATE TRIGGER sources_touch_updated_at BEFORE UPDATE ON sources FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

-- Code-host access tokens live apart from sources, so no query of sources (and no read API) can return them.
CREATE TABLE source_secrets (
  source_id uuid PRIMARY KEY REFERENCES sources (id) ON DELETE CASCADE,
  access_token text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
