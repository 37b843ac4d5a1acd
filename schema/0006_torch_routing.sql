-- Problems defined only by a PyTorch module (issue 14, docs/pytorch-problems.md section 2):
-- their fully judged jobs need a worker with the PyTorch oracle (GpuInfo.torch_version).
-- needs_torch is 1 only for such jobs that are not compile-only (compile-only jobs run
-- anywhere), so the scheduler's three heads per key (compile-only; GPU; GPU + PyTorch) are each
-- one seek on the index below.
ALTER TABLE jobs ADD COLUMN needs_torch INTEGER NOT NULL DEFAULT 0;
DROP INDEX jobs_queue_by_key;
CREATE INDEX jobs_queue_by_key ON jobs(state, api_key_id, compile_only, needs_torch, id);
