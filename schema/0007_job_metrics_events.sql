-- What stats read of each stored result, as rows (issue 13). GetStats and the dashboard's runs
-- (JobStore::FinishedResults) need every counted result's GPU, the candidate's median at each
-- timed shape and its speedups; extracting them from result_json with json_each on every read
-- cost 230 ms per 20,000 jobs. These rows are extracted once, when the result is stored, by
-- triggers (so in the same transaction as the state change, whoever writes the row), and read
-- through the primary key. They are copies of stored values, nothing computed: speedups and
-- denominators are still computed only by server/kernel_metrics.
--   kind 0: the GPU that judged the job (label = JobResult.gpu; present only when set)
--   kind 1: the candidate's median at a timed shape (label = shape, value = timing.median_us)
--   kind 2: a speedup (label = shape, baseline, value = speedup)
-- idx is the element's position in its result array, so rows come back in the stored order.
CREATE TABLE job_metrics (
  job_id INTEGER NOT NULL,
  kind INTEGER NOT NULL,
  idx INTEGER NOT NULL,
  label TEXT NOT NULL,
  baseline TEXT NOT NULL DEFAULT '',
  value REAL,
  PRIMARY KEY (job_id, kind, idx)
) WITHOUT ROWID;

-- The extraction, written once per trigger below and once for the backfill (SQLite triggers
-- cannot share a view over NEW): keep the three in step.
INSERT INTO job_metrics(job_id, kind, idx, label, baseline, value)
  SELECT j.id, 0, 0, json_extract(j.result_json, '$.gpu'), '', NULL FROM jobs j
  WHERE j.result_json IS NOT NULL AND json_extract(j.result_json, '$.gpu') IS NOT NULL
  UNION ALL
  SELECT j.id, 1, t.key, COALESCE(json_extract(t.value, '$.shape'), ''), '', json_extract(t.value, '$.timing.median_us')
  FROM jobs j, json_each(j.result_json, '$.timings') t
  WHERE j.result_json IS NOT NULL AND json_extract(t.value, '$.timing.median_us') IS NOT NULL
  UNION ALL
  SELECT j.id, 2, s.key, COALESCE(json_extract(s.value, '$.shape'), ''), COALESCE(json_extract(s.value, '$.baseline'), ''),
         json_extract(s.value, '$.speedup')
  FROM jobs j, json_each(j.result_json, '$.speedups') s
  WHERE j.result_json IS NOT NULL AND json_extract(s.value, '$.speedup') IS NOT NULL;

CREATE TRIGGER job_metrics_on_insert AFTER INSERT ON jobs WHEN new.result_json IS NOT NULL BEGIN
  INSERT INTO job_metrics(job_id, kind, idx, label, baseline, value)
    SELECT new.id, 0, 0, json_extract(new.result_json, '$.gpu'), '', NULL
    WHERE json_extract(new.result_json, '$.gpu') IS NOT NULL
    UNION ALL
    SELECT new.id, 1, t.key, COALESCE(json_extract(t.value, '$.shape'), ''), '', json_extract(t.value, '$.timing.median_us')
    FROM json_each(new.result_json, '$.timings') t WHERE json_extract(t.value, '$.timing.median_us') IS NOT NULL
    UNION ALL
    SELECT new.id, 2, s.key, COALESCE(json_extract(s.value, '$.shape'), ''), COALESCE(json_extract(s.value, '$.baseline'), ''),
           json_extract(s.value, '$.speedup')
    FROM json_each(new.result_json, '$.speedups') s WHERE json_extract(s.value, '$.speedup') IS NOT NULL;
END;

CREATE TRIGGER job_metrics_on_result AFTER UPDATE OF result_json ON jobs BEGIN
  DELETE FROM job_metrics WHERE job_id = new.id;
  INSERT INTO job_metrics(job_id, kind, idx, label, baseline, value)
    SELECT new.id, 0, 0, json_extract(new.result_json, '$.gpu'), '', NULL
    WHERE json_extract(new.result_json, '$.gpu') IS NOT NULL
    UNION ALL
    SELECT new.id, 1, t.key, COALESCE(json_extract(t.value, '$.shape'), ''), '', json_extract(t.value, '$.timing.median_us')
    FROM json_each(new.result_json, '$.timings') t WHERE json_extract(t.value, '$.timing.median_us') IS NOT NULL
    UNION ALL
    SELECT new.id, 2, s.key, COALESCE(json_extract(s.value, '$.shape'), ''), COALESCE(json_extract(s.value, '$.baseline'), ''),
           json_extract(s.value, '$.speedup')
    FROM json_each(new.result_json, '$.speedups') s WHERE json_extract(s.value, '$.speedup') IS NOT NULL;
END;

-- Every state change of a job, written by JobStore in the transaction of the change itself
-- (issue 13: the job page's timeline). event: 'queued' (submitted), 'leased' (attempt, worker),
-- 'stage' (the lease holder reported a new stage; soft state like progress), 'requeued'
-- (lease expired, released or its worker's key revoked; detail says which), 'finished'
-- (verdict; detail = the result's message, cut). attempt and worker_id are the job's at the
-- event; stage and verdict are kjudge.v1 enum numbers, 0 where they do not apply.
CREATE TABLE job_events (
  id INTEGER PRIMARY KEY,
  job_id INTEGER NOT NULL,
  at_unix_ms INTEGER NOT NULL,
  event TEXT NOT NULL,
  attempt INTEGER,
  worker_id TEXT,
  stage INTEGER NOT NULL DEFAULT 0,
  verdict INTEGER NOT NULL DEFAULT 0,
  detail TEXT NOT NULL DEFAULT ''
);
CREATE INDEX job_events_by_job ON job_events(job_id, id);

-- Jobs stored before this migration: what their rows still say (submitted, first leased,
-- finished); earlier leases and requeues were not recorded, and the detail says so. A job
-- judged at submission (finished when created, never leased) was never queued.
INSERT INTO job_events(job_id, at_unix_ms, event, attempt, worker_id, stage, verdict, detail)
  SELECT id, at_unix_ms, event, attempt, worker_id, stage, verdict, detail FROM (
    SELECT id, created_unix_ms AS at_unix_ms, 'queued' AS event, 0 AS attempt, NULL AS worker_id, 0 AS stage,
           0 AS verdict, '' AS detail, 0 AS ord FROM jobs
    WHERE NOT (state = 3 AND started_unix_ms IS NULL AND finished_unix_ms = created_unix_ms)
    UNION ALL
    SELECT id, started_unix_ms, 'leased', NULL, NULL, 0, 0, 'first lease (recorded before job events existed)', 1
    FROM jobs WHERE started_unix_ms IS NOT NULL
    UNION ALL
    SELECT id, finished_unix_ms, 'finished', attempts, worker_id, 0, COALESCE(verdict, 0), '', 2
    FROM jobs WHERE state = 3 AND finished_unix_ms IS NOT NULL)
  ORDER BY id, ord;

-- The raw timing samples of each bench shape of a job (Timing.samples_us, at most 1000 per
-- shape), stored apart from result_json in the transaction that stores the result, so that
-- reads of results (job lists, leaderboards, GetJob) stay small; the job page plots them.
-- samples: little-endian float32, in the order taken.
CREATE TABLE job_samples (
  job_id INTEGER NOT NULL,
  idx INTEGER NOT NULL,  -- position of the shape in JobResult.timings
  shape TEXT NOT NULL,
  samples BLOB NOT NULL,
  PRIMARY KEY (job_id, idx)
) WITHOUT ROWID;
