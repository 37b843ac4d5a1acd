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
#include "worker/process/descriptor_passing.h"

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

// WaitReadable (the candidate heartbeat's wait): times out with nothing sent, returns once a
// frame arrives without consuming any of it (the whole message is still received after it).
TEST(MessageChannel, WaitReadableWaitsWithoutConsuming) {
  Pair p = MakePair();
  const auto start = Clock::now();
  EXPECT_TRUE(absl::IsDeadlineExceeded(p.b.WaitReadable(start + std::chrono::milliseconds(100))));
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(100));
  v1::CandidateRequest request;
  request.mutable_load()->mutable_run()->set_problem("level1/23_Softmax");
  ASSERT_TRUE(p.a.Send(request).ok());
  ASSERT_TRUE(p.b.WaitReadable(Clock::now() + std::chrono::seconds(5)).ok());
  ASSERT_TRUE(p.b.WaitReadable(Clock::now() + std::chrono::seconds(5)).ok());  // still there
  v1::CandidateRequest got;
  ASSERT_TRUE(p.b.Receive(&got, Clock::now() + std::chrono::seconds(5)).ok());
  EXPECT_EQ(got.load().run().problem(), "level1/23_Softmax");
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

// A model's bind: one descriptor per buffer, hundreds of them (level3/10_ResNet101 binds 628).
// They arrive all and in order, over several sendmsg calls of at most kMaxFdsPerSend each, and
// frame after frame on the same channel.
TEST(MessageChannel, HundredsOfDescriptorsArriveInOrder) {
  Pair p = MakePair();
  constexpr int kCount = 300;  // 5 groups of kMaxFdsPerSend, over SCM_MAX_FD (253); 900 fds open
  std::vector<ScopedFd> pipes;  // read end, write end, ...
  std::vector<int> write_ends;
  for (int i = 0; i < kCount; ++i) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    pipes.emplace_back(fds[0]);
    pipes.emplace_back(fds[1]);
    write_ends.push_back(fds[1]);
  }
  v1::CandidateRequest request;
  request.mutable_load()->mutable_run()->set_problem(std::string(100, 'p'));  // > 10 bytes
  for (int frame = 0; frame < 2; ++frame) {
    std::thread sender([&] { ASSERT_TRUE(p.a.Send(request, write_ends).ok()); });
    v1::CandidateRequest got;
    std::vector<ScopedFd> fds;
    const absl::Status s = p.b.Receive(&got, Clock::now() + std::chrono::seconds(10), &fds);
    sender.join();
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(got.load().run().problem(), std::string(100, 'p'));
    ASSERT_EQ(fds.size(), size_t{kCount});
    // Descriptor i is pipe i's write end: a byte written through it comes out of read end i.
    for (int i = 0; i < kCount; ++i) {
      const char c = static_cast<char>('a' + i % 26);
      ASSERT_EQ(write(fds[i].get(), &c, 1), 1);
      char back = 0;
      ASSERT_EQ(read(pipes[2 * i].get(), &back, 1), 1);
      ASSERT_EQ(back, c) << "descriptor " << i << " of frame " << frame;
    }
  }
}

// Each group after the first needs a byte of the message to travel with; a message too short
// for them is refused before anything is sent.
TEST(MessageChannel, ManyDescriptorsNeedAMessageToCarryThem) {
  Pair p = MakePair();
  std::vector<ScopedFd> opened;
  std::vector<int> fds;
  for (size_t i = 0; i < MessageChannel::kMaxFdsPerSend * 3; ++i) {
    opened.emplace_back(open("/dev/null", O_RDONLY | O_CLOEXEC));
    fds.push_back(opened.back().get());
  }
  v1::CandidateReply empty;  // serializes to 0 bytes: no byte for groups 2 and 3
  const absl::Status s = p.a.Send(empty, fds);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  std::vector<int> too_many(MessageChannel::kMaxFrameFds + 1, fds[0]);
  EXPECT_TRUE(absl::IsInvalidArgument(p.a.Send(empty, too_many)));
  // Nothing was sent: the next frame is the first the peer sees.
  v1::CandidateReply ready;
  ready.set_ready(true);
  ASSERT_TRUE(p.a.Send(ready).ok());
  v1::CandidateReply got;
  ASSERT_TRUE(p.b.Receive(&got, Clock::now() + std::chrono::seconds(5)).ok());
  EXPECT_TRUE(got.ready());
}

// A peer that sends more descriptors in one sendmsg than a group holds (a hostile candidate
// writing to the judge) gets an error, not a silently truncated set.
TEST(MessageChannel, AnOversizedGroupIsAnErrorNotATruncation) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  ScopedFd writer(sv[0]);
  MessageChannel reader{ScopedFd(sv[1])};
  std::vector<ScopedFd> opened;
  std::vector<int> fds;
  for (size_t i = 0; i < MessageChannel::kMaxFdsPerSend + 10; ++i) {
    opened.emplace_back(open("/dev/null", O_RDONLY | O_CLOEXEC));
    fds.push_back(opened.back().get());
  }
  const unsigned char header[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  ASSERT_EQ(process::SendWithDescriptors(writer.get(), header, sizeof(header), fds), 8);
  v1::CandidateReply reply;
  std::vector<ScopedFd> got;
  const absl::Status s = reader.Receive(&reply, Clock::now() + std::chrono::seconds(5), &got);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
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
