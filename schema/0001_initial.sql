-- kjudge schema v1. Applied once, in order, by kjudge-server at start-up (see server/migrations.h).
-- Every state change of a job is one transaction on these tables.

-- Submitted source, stored once per sha256 however often it is submitted.
CREATE TABLE sources (
  sha256 TEXT PRIMARY KEY,
  body TEXT NOT NULL,
  created_unix_ms INTEGER NOT NULL
);

-- The durable queue and the results, one row per submission.
-- state: 1 queued, 2 running (leased), 3 done (kjudge.v1.JobState).
CREATE TABLE jobs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  problem TEXT NOT NULL,
  source_sha256 TEXT NOT NULL REFERENCES sources(sha256),
  filename TEXT NOT NULL DEFAULT '',
  launch_plan TEXT NOT NULL,
  plan_first_line INTEGER NOT NULL DEFAULT 1,
  compile_only INTEGER NOT NULL DEFAULT 0,
  tags_json TEXT NOT NULL DEFAULT '{}',
  seed INTEGER NOT NULL,
  state INTEGER NOT NULL,
  stage INTEGER NOT NULL,
  progress_done INTEGER NOT NULL DEFAULT 0,
  progress_total INTEGER NOT NULL DEFAULT 0,
  attempts INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL,
  worker_id TEXT,
  lease_expires_unix_ms INTEGER,
  verdict INTEGER,                -- kjudge.v1.Verdict once done
  result_json TEXT,               -- kjudge.v1.JobResult as JSON once done
  created_unix_ms INTEGER NOT NULL,
  started_unix_ms INTEGER,
  finished_unix_ms INTEGER
);
CREATE INDEX jobs_by_state ON jobs(state, compile_only, id);

CREATE TABLE workers (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  gpu_json TEXT NOT NULL,
  hardware_key TEXT NOT NULL,
  registered_unix_ms INTEGER NOT NULL,
  last_seen_unix_ms INTEGER NOT NULL
);

-- Baseline timings per problem, shape and implementation, valid only on the hardware and
-- software named by hardware_key (GPU, SM count, memory, driver, CUDA and library versions).
CREATE TABLE baselines (
  problem TEXT NOT NULL,
  shape TEXT NOT NULL,
  name TEXT NOT NULL,
  hardware_key TEXT NOT NULL,
  median_us REAL NOT NULL,
  timing_json TEXT NOT NULL,
  measured_unix_ms INTEGER NOT NULL,
  PRIMARY KEY (problem, shape, name, hardware_key)
);
