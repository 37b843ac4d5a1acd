// SendWithDescriptors: one sendmsg of a byte buffer with file descriptors attached (SCM_RIGHTS),
// the one place that builds the control message. The judge passes CUDA VMM allocations this way
// to the candidate (worker/gpu/message_channel.h) and to the PyTorch oracle
// (worker/oracle_client/oracle_process.h).
//
// Contract: sends `size` bytes of `data` with every descriptor of `fds` (none: a plain sendmsg),
// MSG_NOSIGNAL, retrying on EINTR. Returns the number of bytes sent (a stream socket may take
// fewer than `size`; the descriptors travel with the first byte), or -1 with errno set. The
// caller keeps ownership of the descriptors (the receiver gets duplicates).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <span>

namespace kjudge::process {

ssize_t SendWithDescriptors(int socket, const void* data, size_t size, std::span<const int> fds);

}  // namespace kjudge::process
