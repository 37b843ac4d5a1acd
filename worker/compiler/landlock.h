// Landlock: confines this process (and its threads created later) so that it can only read
// files and list directories beneath a given set of directories, and can write, create,
// execute, connect, bind or signal nothing the running kernel lets Landlock govern.
//
// Contract: LandlockAbi() is the kernel's ABI version (0: Landlock unavailable or disabled).
// RestrictToReadOnlyDirs() builds a ruleset that handles EVERY access right the running ABI
// knows (filesystem rights, ABI >= 4 TCP bind/connect, ABI >= 6 abstract-socket and signal
// scopes) and grants only READ_FILE + READ_DIR beneath each dir (opened with O_PATH, so a
// symlinked dir such as /usr/local/cuda/include is granted at its real location); then
// enforces it (the caller must already have set PR_SET_NO_NEW_PRIVS or hold CAP_SYS_ADMIN).
// An error Status when Landlock is unavailable or any step fails: callers fail closed.
// Irreversible for the calling process.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace kjudge::compiler {

int LandlockAbi();

absl::Status RestrictToReadOnlyDirs(const std::vector<std::string>& dirs);

}  // namespace kjudge::compiler
