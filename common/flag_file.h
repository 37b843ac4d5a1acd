// ReadFlagFile: the whole content of a file a command-line flag names (a TLS certificate, key
// or CA), or an error that names the flag, the file and the reason ("cannot read --tls-cert
// /etc/x.pem: Permission denied"). For the binaries' start-up checks: a file that cannot be read
// must stop the program with that sentence, never fall back to a default (the system CAs) or
// surface later as an unrelated error ("port in use").
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "absl/status/statusor.h"

namespace kjudge {

// `flag` may be "" (the message then starts "cannot read FILE"): CLI11 validators, whose
// errors CLI11 already prefixes with the flag. An empty file is an error too: no usable PEM.
inline absl::StatusOr<std::string> ReadFlagFile(const std::string& flag, const std::string& path) {
  const std::string what = "cannot read " + (flag.empty() ? "" : flag + " ") + path + ": ";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::InvalidArgumentError(what + std::strerror(errno));
  std::string content;
  char buffer[8192];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      return absl::InvalidArgumentError(what + std::strerror(error));
    }
    if (n == 0) break;
    content.append(buffer, static_cast<size_t>(n));
    if (content.size() > (16u << 20)) {
      ::close(fd);
      return absl::InvalidArgumentError(what + "larger than 16 MiB: not a PEM file");
    }
  }
  ::close(fd);
  if (content.empty()) return absl::InvalidArgumentError(what + "the file is empty");
  return content;
}

// For CLI11's check(): "" when `path` can be read, else why not.
inline std::string CheckReadableFlagFile(const std::string& path) {
  absl::StatusOr<std::string> content = ReadFlagFile("", path);
  return content.ok() ? std::string() : std::string(content.status().message());
}

}  // namespace kjudge
