-- Tenancy and the RL-loop API (issue 11).
-- public: its owner lets leaderboards show it (SubmitRequest.public).
ALTER TABLE jobs ADD COLUMN public INTEGER NOT NULL DEFAULT 0;
-- A retry with the same (api_key_id, idempotency_key) returns the first job; request_sha256
-- tells a true retry from a different request that reuses the key.
ALTER TABLE jobs ADD COLUMN idempotency_key TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN request_sha256 TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX jobs_by_idempotency_key ON jobs(api_key_id, idempotency_key) WHERE idempotency_key != '';
-- ListJobs: a tenant's jobs, newest first.
CREATE INDEX jobs_by_key_id ON jobs(api_key_id, id);
