// kjudge-bench-server-scale: grow a template database to N stored jobs, or drive a running
// kjudge-server with client threads and fake GPU workers (server_scale.h).
#include <cstdio>
#include <fstream>
#include <sstream>

#include "CLI/CLI.hpp"
#include "bench/server_scale/server_scale.h"

namespace {

std::string ReadKey(const std::string& path) {
  if (path.empty()) return "";
  std::ifstream in(path);
  std::string key;
  in >> key;
  return key;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kjudge-bench-server-scale: the server's own ceiling (bench/server_scale/run.sh, docs/scale.md)"};
  app.require_subcommand(1);
  std::string db;
  int64_t jobs = 100000;
  auto* grow = app.add_subcommand("grow", "multiply a drained template database's finished jobs to --jobs");
  grow->add_option("--db", db, "the SQLite file (no server running on it)")->required();
  grow->add_option("--jobs", jobs, "stored jobs wanted")->capture_default_str();

  kjudge::bench::DriveOptions options;
  std::string source_file, submit_key_file, worker_key_file;
  auto* drive = app.add_subcommand("drive", "submit, work and mixed phases against a running server");
  drive->add_option("--server", options.server)->capture_default_str();
  drive->add_option("--source", source_file, "a .cu submission with a kjudge-plan block")->required();
  drive->add_option("--problem", options.problem)->capture_default_str();
  drive->add_option("--submit-key-file", submit_key_file, "a submitter key (none: auth off)");
  drive->add_option("--worker-key-file", worker_key_file, "a worker key (none: auth off)");
  drive->add_option("--clients", options.clients, "submitting threads")->capture_default_str();
  drive->add_option("--workers", options.workers, "fake GPU workers")->capture_default_str();
  drive->add_option("--seconds", options.seconds, "length of each phase")->capture_default_str();
  drive->add_option("--progress-reports", options.progress_reports, "ReportProgress calls per job")
      ->capture_default_str();
  drive->add_option("--samples", options.samples_per_shape, "timing samples per shape in each result")
      ->capture_default_str();
  drive->add_option("--server-pid", options.pid, "the server's pid: its CPU per phase");
  drive->add_flag("--drain", options.drain, "submit for --seconds, then work until the queue is empty (a template)");
  CLI11_PARSE(app, argc, argv);

  if (*grow) {
    absl::Status status = kjudge::bench::GrowDatabase(db, jobs);
    if (!status.ok()) std::fprintf(stderr, "grow: %s\n", status.ToString().c_str());
    return status.ok() ? 0 : 1;
  }
  std::ifstream in(source_file);
  std::stringstream buffer;
  buffer << in.rdbuf();
  options.source = buffer.str();
  if (options.source.empty()) {
    std::fprintf(stderr, "drive: cannot read %s\n", source_file.c_str());
    return 2;
  }
  options.submit_key = ReadKey(submit_key_file);
  options.worker_key = ReadKey(worker_key_file);
  absl::Status status = kjudge::bench::Drive(options);
  if (!status.ok()) std::fprintf(stderr, "drive: %s\n", status.ToString().c_str());
  return status.ok() ? 0 : 1;
}
