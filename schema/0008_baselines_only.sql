-- Baselines-only jobs (SubmitRequest.baselines_only): a job that names a problem and no
-- source; a GPU worker measures the problem's missing baselines and the server caches them.
-- They are queued and leased like any GPU job (compile_only = 0, needs_torch as for the
-- problem) but never counted in stats or leaderboards.
ALTER TABLE jobs ADD COLUMN baselines_only INTEGER NOT NULL DEFAULT 0;
