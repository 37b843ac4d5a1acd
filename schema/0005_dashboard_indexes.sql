-- Indexes for the dashboard's reads (issue 13), so its pages stay fast with 100,000 jobs
-- without scanning the stored results: activity over time and the verdict mix (by finish
-- time), what each worker has served (by worker), and a problem's leaderboard (its correct
-- jobs). The last two are partial: a new job touches neither, so a submission writes only one
-- more index page than before.
CREATE INDEX jobs_by_finish ON jobs(state, finished_unix_ms, verdict, api_key_id);
CREATE INDEX jobs_by_worker ON jobs(worker_id, state, verdict) WHERE worker_id IS NOT NULL;
CREATE INDEX jobs_correct_by_problem ON jobs(problem) WHERE verdict = 1;

-- Each job's tags as rows, kept by a trigger (tags never change after submission), so stats
-- for a tag (GetStats, the dashboard's runs) find their jobs through an index instead of
-- parsing every job's tags_json.
CREATE TABLE job_tags (
  job_id INTEGER NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (key, value, job_id)
) WITHOUT ROWID;
INSERT INTO job_tags(job_id, key, value) SELECT jobs.id, t.key, t.value FROM jobs, json_each(jobs.tags_json) t;
CREATE TRIGGER job_tags_on_insert AFTER INSERT ON jobs BEGIN
  INSERT INTO job_tags(job_id, key, value) SELECT new.id, t.key, t.value FROM json_each(new.tags_json) t;
END;
