#include "worker/process/descriptor_passing.h"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace kjudge::process {

ssize_t SendWithDescriptors(int socket, const void* data, size_t size, std::span<const int> fds) {
  iovec iov{const_cast<void*>(data), size};  // sendmsg does not write through it
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  std::vector<char> control;
  if (!fds.empty()) {
    control.resize(CMSG_SPACE(sizeof(int) * fds.size()));
    msg.msg_control = control.data();
    msg.msg_controllen = control.size();
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  }
  ssize_t sent = 0;
  do {
    sent = sendmsg(socket, &msg, MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  return sent;
}

}  // namespace kjudge::process
