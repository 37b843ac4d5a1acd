// The standard gRPC health service (grpc.health.v1.Health/Check) answers SERVING on a running
// server, as load balancers and Kubernetes probes expect. Called through a generic stub with
// the protobuf bytes written out, so no health.proto needs to be compiled into the tests.
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <future>

#include "tests/integration/cluster.h"

namespace kjudge::testing {
namespace {

TEST(Health, CheckAnswersServing) {
  Cluster cluster("health");
  cluster.StartServer();
  grpc::GenericStub stub(grpc::CreateChannel(cluster.address(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  // HealthCheckRequest{service: ""} is the empty message.
  grpc::Slice empty;
  grpc::ByteBuffer request(&empty, 1);
  grpc::ByteBuffer response;
  std::promise<grpc::Status> done;
  stub.UnaryCall(&context, "/grpc.health.v1.Health/Check", grpc::StubOptions(), &request, &response,
                 [&](grpc::Status status) { done.set_value(status); });
  grpc::Status status = done.get_future().get();
  ASSERT_TRUE(status.ok()) << status.error_message();
  std::vector<grpc::Slice> slices;
  ASSERT_TRUE(response.Dump(&slices).ok());
  std::string bytes;
  for (const grpc::Slice& slice : slices) bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  // HealthCheckResponse{status: SERVING (1)}: field 1, varint 1.
  EXPECT_EQ(bytes, std::string("\x08\x01", 2));
}

}  // namespace
}  // namespace kjudge::testing
