-- Workers bound to their keys, lease tokens, requested baselines and fair scheduling (issue 11).

-- The API key that registered each worker ('' with auth off): only that key may lease, renew,
-- report, complete or release for the worker id, and revoking the key requeues its leases.
ALTER TABLE workers ADD COLUMN api_key_id TEXT NOT NULL DEFAULT '';
CREATE INDEX workers_by_key ON workers(api_key_id);

-- The current lease of a running job: 128 random bits (hex) from a CSPRNG, handed to the
-- worker with the job and required back on every renew, progress, result and release. NULL
-- while the job is not leased, so a result can only ever belong to the current lease.
ALTER TABLE jobs ADD COLUMN lease_token TEXT;

-- Baselines the server asked one lease to measure (the ones missing for the worker's hardware
-- key when it leased a GPU job). A result stores a baseline only if it matches a row here for
-- the same job and lease token; the rows go with the lease.
CREATE TABLE baseline_requests (
  job_id INTEGER NOT NULL,
  lease_token TEXT NOT NULL,
  problem TEXT NOT NULL,
  shape TEXT NOT NULL,
  name TEXT NOT NULL,
  hardware_key TEXT NOT NULL,
  PRIMARY KEY (job_id, lease_token, shape, name)
);

-- Fair scheduling across submitting keys: when each key last had a job leased, as a sequence
-- number (several leases can fall in one millisecond).
CREATE TABLE lease_turns (
  api_key_id TEXT PRIMARY KEY,
  last_lease_seq INTEGER NOT NULL
);

-- The scheduler's query: the oldest queued job of each key.
CREATE INDEX jobs_queue_by_key ON jobs(state, api_key_id, compile_only, id);
