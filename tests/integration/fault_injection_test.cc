// Fault injection under load (no GPU): clients keep submitting compile-only jobs while the
// server, the workers and their runner children are killed with SIGKILL at random moments and
// restarted. Afterwards every acknowledged submission must have exactly one result, and no
// submission may appear twice.
#include <dirent.h>
#include <signal.h>

#include <atomic>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "tests/integration/cluster.h"

namespace kjudge::testing {
namespace {

// PIDs of `program` processes (by argv[0]) whose command line mentions `needle` (this
// cluster's directory).
std::vector<pid_t> ProcessesMentioning(const std::string& needle, const std::string& program) {
  std::vector<pid_t> pids;
  DIR* proc = opendir("/proc");
  while (dirent* entry = readdir(proc)) {
    const pid_t pid = static_cast<pid_t>(std::atoi(entry->d_name));
    if (pid <= 0) continue;
    std::string cmdline = ReadFileOrEmpty("/proc/" + std::to_string(pid) + "/cmdline");
    const std::string argv0 = cmdline.substr(0, cmdline.find('\0'));
    for (char& c : cmdline) c = c == '\0' ? ' ' : c;
    const bool is_program = argv0.size() >= program.size() &&
                            argv0.compare(argv0.size() - program.size(), program.size(), program) == 0;
    if (is_program && cmdline.find(needle) != std::string::npos) pids.push_back(pid);
  }
  closedir(proc);
  return pids;
}

TEST(FaultInjection, EveryAcknowledgedSubmissionEndsWithExactlyOneResult) {
  Cluster cluster("faults");
  const std::vector<std::string> server_args = {"--lease-seconds", "2", "--max-attempts", "20"};
  cluster.StartServer(server_args);
  cluster.StartWorker();
  cluster.StartWorker();

  // Distinct sources, so a duplicate would be visible: each submission is tagged with its own
  // number.
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::map<std::string, int> acknowledged;  // job id -> submission number
  std::atomic<int> next{0};
  auto client = [&] {
    while (!stop.load()) {
      const int number = next++;
      if (number >= 120) return;
      while (!stop.load()) {
        CliResult r = cluster.Cli({"submit", SourcePath("problems/level1/19_ReLU/solution.cu"), "--problem",
                                   "level1/19_ReLU", "--compile-only", "--tag", "n=" + std::to_string(number)},
                                  30);
        if (r.exit_code == 0) {
          std::lock_guard lock(mutex);
          acknowledged[IdText(r.json["id"])] = number;
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));  // server down: retry
      }
    }
  };
  std::vector<std::thread> clients;
  for (int i = 0; i < 4; ++i) clients.emplace_back(client);

  std::mt19937 random(12345);
  for (int round = 0; round < 12; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300 + random() % 700));
    switch (random() % 3) {
      case 0:
        cluster.KillServer(SIGKILL);
        cluster.StartServer(server_args);
        break;
      case 1:
        cluster.StopWorker(SIGKILL);  // the newest worker; its runner dies with it
        cluster.StartWorker();
        break;
      default:
        for (pid_t pid : ProcessesMentioning(cluster.dir(), "kjudge-runner")) kill(pid, SIGKILL);
        break;
    }
  }
  for (std::thread& t : clients) t.join();
  ASSERT_EQ(acknowledged.size(), 120u);

  std::set<int> numbers;
  for (const auto& [id, number] : acknowledged) {
    CliResult r = cluster.Cli({"job", id, "--wait", "--timeout", "180"}, 200);
    EXPECT_EQ(r.exit_code, 0) << "job " << id << ": " << r.out << r.err;
    EXPECT_EQ(r.json.value("/result/verdict"_json_pointer, std::string()), "COMPILED") << r.out;
    EXPECT_EQ(r.json["tags"]["n"], std::to_string(number));
    numbers.insert(number);
  }
  EXPECT_EQ(numbers.size(), 120u) << "a submission was acknowledged twice";
  // The kills left a whole file: every page, reference and job state (issue 30 pt7).
  EXPECT_EQ(cluster.CheckDatabase(), "");
  stop = true;
  if (::testing::Test::HasFailure()) std::cerr << cluster.Logs();
}

}  // namespace
}  // namespace kjudge::testing
