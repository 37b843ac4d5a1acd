-- API keys: only a SHA-256 of each key is stored; the key itself is shown once, at creation.
-- role: 'submitter' (ClientService), 'worker' (WorkerService), 'admin' (both, and key admin).
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,              -- the key's public prefix, e.g. kj_3f9a1c, for logs and quotas
  name TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('submitter', 'worker', 'admin')),
  sha256 TEXT NOT NULL UNIQUE,
  created_unix_ms INTEGER NOT NULL,
  revoked_unix_ms INTEGER
);

-- Which key submitted a job ('' when auth is off): per-key queue caps count these.
ALTER TABLE jobs ADD COLUMN api_key_id TEXT NOT NULL DEFAULT '';
CREATE INDEX jobs_by_key ON jobs(api_key_id, state);
