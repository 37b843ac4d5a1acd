-- The two heaviest dashboard pages at 100,000 jobs (issue 13): the admin overview and the
-- two-run comparison. Nothing here changes what a page shows; it changes what a page reads.

-- The overview's verdict mix per hour over 24 hours: one COUNT per verdict and hour, each a
-- range of this index, instead of grouping every job of the day in a temporary b-tree (43 of
-- the overview's 70 ms). Partial: a job enters it once, when it finishes. state is in the key
-- only so that the index covers the count (the partial WHERE alone does not, in SQLite 3.40).
CREATE INDEX jobs_done_by_verdict ON jobs(verdict, finished_unix_ms, api_key_id, state) WHERE state = 3;

-- What stats read of each finished job (JobStore::FinishedResults: GetStats and the dashboard's
-- runs), one narrow row per job: a run of 20,000 jobs is 20,000 rows found through job_tags, not
-- 20,000 rows of jobs (results, plans, tags) plus a job_metrics row per GPU, median and speedup
-- (35,000 in the benchmark), which took most of the comparison page's time. A row exists exactly
-- while its job is finished (state 3); its columns are copies of the job's, and metrics is the
-- job's job_metrics rows (GPU, medians, speedups) packed into one text, each entry
--   "KIND IDX VALUE LABEL_BYTES BASELINE_BYTES " then the label's and the baseline's bytes,
-- VALUE being job_metrics.value printed with 21 significant digits ('%!.20e', computed in long
-- double), which parses back to the same double (but a zero loses its sign: SQLite prints -0.0 as
-- 0.0, and stats only ever ask whether a value is above 0). Entries are in no particular order (the
-- reader sorts by kind, idx). No rule of stats is applied here: FinishedResults' WHERE is the rule.
-- The triggers below keep it in the transaction that changes the job, so it is never behind.
CREATE TABLE job_stats (
  job_id INTEGER PRIMARY KEY,
  problem TEXT NOT NULL,
  verdict INTEGER,
  compile_only INTEGER NOT NULL,
  baselines_only INTEGER NOT NULL,
  public INTEGER NOT NULL,
  api_key_id TEXT NOT NULL,
  metrics TEXT NOT NULL
);

-- The row, written once here for the jobs already stored and once in each trigger below, from
-- NEW: keep the four in step. (A shared view would cost every INSERT and UPDATE of jobs about
-- 15 us more to prepare: SQLite compiles a table's triggers into each statement that writes it.)
INSERT INTO job_stats(job_id, problem, verdict, compile_only, baselines_only, public, api_key_id, metrics)
  SELECT j.id, j.problem, j.verdict, j.compile_only, j.baselines_only, j.public, j.api_key_id,
         COALESCE((SELECT group_concat(printf('%d %d %!.20e %d %d ', m.kind, m.idx, m.value, length(CAST(m.label AS BLOB)),
                                              length(CAST(m.baseline AS BLOB))) || m.label || m.baseline, '')
                   FROM job_metrics m WHERE m.job_id = j.id), '')
  FROM jobs j WHERE j.state = 3;

-- job_metrics' triggers (0007) again, each now also writing the job's job_stats row after its
-- job_metrics rows, in the same trigger: SQLite does not promise an order between two
-- triggers on one event, and the row is built from those rows. Their job_metrics statements
-- are 0007's, unchanged. The insert trigger also fires for a job stored finished without a
-- result (none is, today), so that every finished job has its row.
DROP TRIGGER job_metrics_on_insert;
CREATE TRIGGER job_metrics_on_insert AFTER INSERT ON jobs WHEN new.result_json IS NOT NULL OR new.state = 3 BEGIN
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
  INSERT INTO job_stats(job_id, problem, verdict, compile_only, baselines_only, public, api_key_id, metrics)
    SELECT new.id, new.problem, new.verdict, new.compile_only, new.baselines_only, new.public, new.api_key_id,
           COALESCE((SELECT group_concat(printf('%d %d %!.20e %d %d ', m.kind, m.idx, m.value, length(CAST(m.label AS BLOB)),
                                                length(CAST(m.baseline AS BLOB))) || m.label || m.baseline, '')
                     FROM job_metrics m WHERE m.job_id = new.id), '')
    WHERE new.state = 3;
END;

DROP TRIGGER job_metrics_on_result;
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
  DELETE FROM job_stats WHERE job_id = old.id;
  INSERT INTO job_stats(job_id, problem, verdict, compile_only, baselines_only, public, api_key_id, metrics)
    SELECT new.id, new.problem, new.verdict, new.compile_only, new.baselines_only, new.public, new.api_key_id,
           COALESCE((SELECT group_concat(printf('%d %d %!.20e %d %d ', m.kind, m.idx, m.value, length(CAST(m.label AS BLOB)),
                                                length(CAST(m.baseline AS BLOB))) || m.label || m.baseline, '')
                     FROM job_metrics m WHERE m.job_id = new.id), '')
    WHERE new.state = 3;
END;

-- Every other column the row copies, when the result stays (a new result is the trigger
-- above's): today only a finish changes them, and it stores a result, but the row must follow
-- whatever changes. Leases and requeues change state between 1 and 2 and do nothing here.
CREATE TRIGGER job_stats_on_update
AFTER UPDATE OF state, problem, verdict, compile_only, baselines_only, public, api_key_id ON jobs
WHEN (old.state = 3 OR new.state = 3) AND new.result_json IS old.result_json BEGIN
  DELETE FROM job_stats WHERE job_id = old.id;
  INSERT INTO job_stats(job_id, problem, verdict, compile_only, baselines_only, public, api_key_id, metrics)
    SELECT new.id, new.problem, new.verdict, new.compile_only, new.baselines_only, new.public, new.api_key_id,
           COALESCE((SELECT group_concat(printf('%d %d %!.20e %d %d ', m.kind, m.idx, m.value, length(CAST(m.label AS BLOB)),
                                                length(CAST(m.baseline AS BLOB))) || m.label || m.baseline, '')
                     FROM job_metrics m WHERE m.job_id = new.id), '')
    WHERE new.state = 3;
END;

CREATE TRIGGER job_stats_on_delete AFTER DELETE ON jobs WHEN old.state = 3 BEGIN
  DELETE FROM job_stats WHERE job_id = old.id;
END;
