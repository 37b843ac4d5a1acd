// MessageChannel: the judge <-> candidate framing, with descriptors passed alongside (no GPU).
#include "worker/gpu/message_channel.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kjudge/v1/candidate.pb.h"

namespace kjudge::runner {
namespace {

using Clock = MessageChannel::Clock;

struct Pair {
  MessageChannel a{ScopedFd(-1)};
  MessageChannel b{ScopedFd(-1)};
};

Pair MakePair() {
  int sv[2];
  EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  Pair p;
  p.a = MessageChannel(ScopedFd(sv[0]));
  p.b = MessageChannel(ScopedFd(sv[1]));
  return p;
}

TEST(MessageChannel, BigMessagesAndDescriptorsArriveIntact) {
  Pair p = MakePair();
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  ScopedFd read_end(pipe_fds[0]);
  ScopedFd write_end(pipe_fds[1]);
  v1::CandidateRequest request;
  request.mutable_load()->set_cubin(std::string(3 << 20, 'c'));  // over any socket buffer
  request.mutable_load()->mutable_run()->set_problem("level1/19_ReLU");
  // The frame is larger than the socket buffer: the sender needs its own thread.
  std::thread sender([&] { ASSERT_TRUE(p.a.Send(request, {write_end.get()}).ok()); });
  v1::CandidateRequest got;
  std::vector<ScopedFd> fds;
  ASSERT_TRUE(p.b.Receive(&got, Clock::now() + std::chrono::seconds(10), &fds).ok());
  sender.join();
  EXPECT_EQ(got.load().cubin().size(), size_t{3} << 20);
  EXPECT_EQ(got.load().run().problem(), "level1/19_ReLU");
  ASSERT_EQ(fds.size(), 1U);
  // The received descriptor is the pipe's write end: a byte written through it arrives.
  ASSERT_EQ(write(fds[0].get(), "x", 1), 1);
  char c = 0;
  ASSERT_EQ(read(read_end.get(), &c, 1), 1);
  EXPECT_EQ(c, 'x');
  EXPECT_NE(fcntl(fds[0].get(), F_GETFD) & FD_CLOEXEC, 0);  // not inherited by children
}

TEST(MessageChannel, DeadlineAndPeerCloseAreDistinct) {
  Pair p = MakePair();
  v1::CandidateReply reply;
  absl::Status s = p.b.Receive(&reply, Clock::now() + std::chrono::milliseconds(50));
  EXPECT_TRUE(absl::IsDeadlineExceeded(s)) << s;
  p.a = MessageChannel(ScopedFd(-1));  // closes the peer
  s = p.b.Receive(&reply, Clock::now() + std::chrono::seconds(5));
  EXPECT_TRUE(absl::IsUnavailable(s)) << s;
}

TEST(MessageChannel, ALyingLengthIsRefusedBeforeAllocating) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  ScopedFd writer(sv[0]);
  MessageChannel reader{ScopedFd(sv[1])};
  const unsigned char header[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F};
  ASSERT_EQ(write(writer.get(), header, sizeof(header)), 8);
  v1::CandidateReply reply;
  const absl::Status s = reader.Receive(&reply, Clock::now() + std::chrono::seconds(5));
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
}

}  // namespace
}  // namespace kjudge::runner
