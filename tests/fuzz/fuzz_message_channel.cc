// libFuzzer target: MessageChannel framing (worker/gpu/message_channel.h) as the judge reads what
// a candidate process, which runs submitted code, writes to it (issue 30 point 6). The input is
// the byte stream the peer sends (then it closes): frames of an 8-byte little-endian length and
// a CandidateReply. Receive() must never crash, never allocate more than kMaxFrameBytes for a
// lying length, end with an error value once the stream ends, and every message it accepts must
// cross a fresh channel unchanged.
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "kjudge/v1/candidate.pb.h"
#include "worker/gpu/message_channel.h"

namespace {

using kjudge::runner::MessageChannel;
using kjudge::runner::ScopedFd;

void Require(bool condition) {
  if (!condition) std::abort();
}

struct Pair {
  ScopedFd a, b;
};

Pair SocketPair() {
  int fds[2];
  Require(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0);
  return {ScopedFd(fds[0]), ScopedFd(fds[1])};
}

void CheckCrossesUnchanged(const kjudge::v1::CandidateReply& reply) {
  Pair pair = SocketPair();
  MessageChannel sender(std::move(pair.a));
  MessageChannel receiver(std::move(pair.b));
  const std::string bytes = reply.SerializeAsString();
  if (bytes.size() > 100000) return;  // would block the socket buffer without a reader thread
  Require(sender.Send(reply).ok());
  kjudge::v1::CandidateReply again;
  Require(receiver.Receive(&again, MessageChannel::Clock::now() + std::chrono::seconds(5)).ok());
  Require(again.SerializeAsString() == bytes);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 65536) return 0;  // fits a socket buffer: written whole before reading
  Pair pair = SocketPair();
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(pair.a.get(), data + done, size - done);
    Require(n > 0);
    done += static_cast<size_t>(n);
  }
  { const ScopedFd closed = std::move(pair.a); }  // the peer closes: a short frame is an error, not a wait
  MessageChannel channel(std::move(pair.b));
  for (int frame = 0; frame < 64; ++frame) {
    kjudge::v1::CandidateReply reply;
    std::vector<ScopedFd> fds;
    const absl::Status s =
        channel.Receive(&reply, MessageChannel::Clock::now() + std::chrono::seconds(5), &fds);
    if (!s.ok()) {
      Require(!absl::IsDeadlineExceeded(s));  // the stream ended: an answer, not a wait
      break;
    }
    Require(fds.empty());
    CheckCrossesUnchanged(reply);
  }
  return 0;
}
