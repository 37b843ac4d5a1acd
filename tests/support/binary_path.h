// ResolveBinary: where a test finds a kjudge binary (kjudge-runner, kjudge-server, ...), so that
// test binaries keep working when copied away from the build tree that made them (the bundle
// of deploy/pack.sh puts bin/test_* next to bin/kjudge-runner on a GPU host that never had the
// build folder; the build-time path baked into the test then does not exist: exit 127).
//
// Contract: the first of these that is an executable file, else the build-time path as given:
//   1. $<env_var>, when set and non-empty (an explicit override always wins, even if it is not
//      executable: the exec then fails loudly instead of silently using another binary);
//   2. <dir of the test binary>/<name>         (the bundle's bin/, and the build tree's bin/);
//   3. <dir of the test binary>/../bin/<name>  (a test binary in a sibling folder, e.g. tests/);
//   4. build_time_path.
// `self_exe` is the test binary's path; empty means /proc/self/exe (tests pass one to check the
// resolution on a relocated layout). Header-only: the worker unit tests do not link the test
// support library.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace kjudge::testing {

inline std::string ResolveBinary(std::string_view name, const char* env_var,
                                 std::string_view build_time_path, std::string self_exe = "") {
  if (env_var != nullptr) {
    const char* value = std::getenv(env_var);
    if (value != nullptr && *value != '\0') return value;
  }
  std::error_code error;
  if (self_exe.empty()) self_exe = std::filesystem::read_symlink("/proc/self/exe", error).string();
  if (!error && !self_exe.empty()) {
    const std::filesystem::path dir = std::filesystem::path(self_exe).parent_path();
    for (const std::filesystem::path& candidate :
         {dir / std::string(name), dir / ".." / "bin" / std::string(name)}) {
      if (access(candidate.c_str(), X_OK) == 0 && std::filesystem::is_regular_file(candidate, error)) {
        return candidate.lexically_normal().string();
      }
    }
  }
  return std::string(build_time_path);
}

}  // namespace kjudge::testing
