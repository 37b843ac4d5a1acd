#include "worker/gpu/shared_allocation.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <mutex>
#include <utility>

#include "worker/gpu/runner_error.h"
#include "worker/gpu/str_util.h"

namespace kjudge::runner {
namespace {

// The driver entry points VMM needs, looked up once through the runtime.
struct VmmApi {
  decltype(&::cuMemCreate) create = nullptr;
  decltype(&::cuMemRelease) release = nullptr;
  decltype(&::cuMemAddressReserve) reserve = nullptr;
  decltype(&::cuMemAddressFree) address_free = nullptr;
  decltype(&::cuMemMap) map = nullptr;
  decltype(&::cuMemUnmap) unmap = nullptr;
  decltype(&::cuMemSetAccess) set_access = nullptr;
  decltype(&::cuMemExportToShareableHandle) export_handle = nullptr;
  decltype(&::cuMemImportFromShareableHandle) import_handle = nullptr;
  decltype(&::cuMemGetAllocationGranularity) granularity = nullptr;
  decltype(&::cuGetErrorName) error_name = nullptr;
  std::string error;  // "" when every entry point was found
};

template <typename Fn>
void Resolve(const char* symbol, Fn* fn, std::string* error) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult status{};
  const cudaError_t err = cudaGetDriverEntryPointByVersion(symbol, &p, 12000, cudaEnableDefault,
                                                           &status);
  if (err != cudaSuccess || status != cudaDriverEntryPointSuccess || p == nullptr) {
    (void)cudaGetLastError();
    if (error->empty()) *error = Cat("driver entry point ", symbol, " not found");
    return;
  }
  *fn = reinterpret_cast<Fn>(p);
}

const VmmApi& Api() {
  static VmmApi api;
  static std::once_flag once;
  std::call_once(once, [] {
    Resolve("cuMemCreate", &api.create, &api.error);
    Resolve("cuMemRelease", &api.release, &api.error);
    Resolve("cuMemAddressReserve", &api.reserve, &api.error);
    Resolve("cuMemAddressFree", &api.address_free, &api.error);
    Resolve("cuMemMap", &api.map, &api.error);
    Resolve("cuMemUnmap", &api.unmap, &api.error);
    Resolve("cuMemSetAccess", &api.set_access, &api.error);
    Resolve("cuMemExportToShareableHandle", &api.export_handle, &api.error);
    Resolve("cuMemImportFromShareableHandle", &api.import_handle, &api.error);
    Resolve("cuMemGetAllocationGranularity", &api.granularity, &api.error);
    Resolve("cuGetErrorName", &api.error_name, &api.error);
  });
  return api;
}

absl::Status Check(CUresult r, std::string_view what) {
  if (r == CUDA_SUCCESS) return absl::OkStatus();
  const char* name = "?";
  if (Api().error_name != nullptr) Api().error_name(r, &name);
  if (r == CUDA_ERROR_OUT_OF_MEMORY) {
    return MakeRunnerError(v1::REJECTED, Cat("out of device memory: ", what), name);
  }
  return MakeRunnerError(v1::INTERNAL_ERROR, Cat(what, " failed: ", name), name);
}

absl::Status Ready() {
  if (!Api().error.empty()) return MakeRunnerError(v1::INTERNAL_ERROR, Api().error);
  return absl::OkStatus();
}

CUmemAllocationProp Prop(int device) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  return prop;
}

absl::Status MapWithAccess(CUdeviceptr ptr, size_t size, CUmemGenericAllocationHandle handle,
                           int device, bool read_only) {
  KJ_RETURN_IF_ERROR(Check(Api().map(ptr, size, 0, handle, 0), "cuMemMap"));
  CUmemAccessDesc access{};
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = device;
  access.flags = read_only ? CU_MEM_ACCESS_FLAGS_PROT_READ : CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  return Check(Api().set_access(ptr, size, &access, 1), "cuMemSetAccess");
}

}  // namespace

absl::StatusOr<size_t> SharedGranularity(int device) {
  KJ_RETURN_IF_ERROR(Ready());
  const CUmemAllocationProp prop = Prop(device);
  size_t granularity = 0;
  KJ_RETURN_IF_ERROR(Check(
      Api().granularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
      "cuMemGetAllocationGranularity"));
  return granularity;
}

absl::StatusOr<SharedAllocation> SharedAllocation::Create(size_t bytes, int device) {
  KJ_ASSIGN_OR_RETURN(size_t granularity, SharedGranularity(device));
  const size_t rounded = (std::max<size_t>(bytes, 1) + granularity - 1) / granularity * granularity;
  if (rounded < bytes) return MakeRunnerError(v1::REJECTED, Cat(bytes, " bytes cannot be mapped"));
  SharedAllocation a;
  const CUmemAllocationProp prop = Prop(device);
  CUmemGenericAllocationHandle handle = 0;
  KJ_RETURN_IF_ERROR(Check(Api().create(&handle, rounded, &prop, 0),
                           Cat("cuMemCreate(", rounded, " bytes)")));
  a.handle_ = handle;
  a.size_ = rounded;
  CUdeviceptr ptr = 0;
  KJ_RETURN_IF_ERROR(Check(Api().reserve(&ptr, rounded, granularity, 0, 0), "cuMemAddressReserve"));
  a.ptr_ = ptr;
  if (absl::Status s = MapWithAccess(ptr, rounded, handle, device, false); !s.ok()) {
    Api().address_free(ptr, rounded);
    a.ptr_ = 0;
    return s;
  }
  return a;
}

absl::StatusOr<int> SharedAllocation::Export() const {
  KJ_RETURN_IF_ERROR(Ready());
  int fd = -1;
  KJ_RETURN_IF_ERROR(Check(Api().export_handle(&fd, handle_,
                                               CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
                           "cuMemExportToShareableHandle"));
  return fd;
}

SharedAllocation::SharedAllocation(SharedAllocation&& other) noexcept
    : handle_(std::exchange(other.handle_, 0)),
      ptr_(std::exchange(other.ptr_, 0)),
      size_(std::exchange(other.size_, 0)) {}

SharedAllocation& SharedAllocation::operator=(SharedAllocation&& other) noexcept {
  if (this != &other) {
    Free();
    handle_ = std::exchange(other.handle_, 0);
    ptr_ = std::exchange(other.ptr_, 0);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

SharedAllocation::~SharedAllocation() { Free(); }

void SharedAllocation::Free() {
  if (ptr_ != 0) {
    Api().unmap(ptr_, size_);
    Api().address_free(ptr_, size_);
  }
  if (handle_ != 0) Api().release(handle_);
  handle_ = 0;
  ptr_ = 0;
  size_ = 0;
}

absl::StatusOr<MappedAllocation> MappedAllocation::Import(int fd, size_t bytes, int device,
                                                          bool read_only) {
  KJ_ASSIGN_OR_RETURN(size_t granularity, SharedGranularity(device));
  if (bytes == 0 || bytes % granularity != 0) {
    return MakeRunnerError(v1::INTERNAL_ERROR,
                           Cat("a shared allocation of ", bytes, " bytes is not a multiple of ",
                               granularity));
  }
  CUmemGenericAllocationHandle handle = 0;
  KJ_RETURN_IF_ERROR(Check(
      Api().import_handle(&handle, reinterpret_cast<void*>(static_cast<intptr_t>(fd)),  // NOLINT
                          CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
      "cuMemImportFromShareableHandle"));
  MappedAllocation m;
  CUdeviceptr ptr = 0;
  absl::Status s = Check(Api().reserve(&ptr, bytes, granularity, 0, 0), "cuMemAddressReserve");
  if (s.ok()) {
    m.ptr_ = ptr;
    m.size_ = bytes;
    s = MapWithAccess(ptr, bytes, handle, device, read_only);
    if (!s.ok()) {
      Api().unmap(ptr, bytes);
      Api().address_free(ptr, bytes);
      m.ptr_ = 0;
      m.size_ = 0;
    }
  }
  Api().release(handle);  // the mapping holds the memory from here on
  KJ_RETURN_IF_ERROR(s);
  return m;
}

MappedAllocation::MappedAllocation(MappedAllocation&& other) noexcept
    : ptr_(std::exchange(other.ptr_, 0)), size_(std::exchange(other.size_, 0)) {}

MappedAllocation& MappedAllocation::operator=(MappedAllocation&& other) noexcept {
  if (this != &other) {
    Free();
    ptr_ = std::exchange(other.ptr_, 0);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

MappedAllocation::~MappedAllocation() { Free(); }

void MappedAllocation::Free() {
  if (ptr_ != 0) {
    Api().unmap(ptr_, size_);
    Api().address_free(ptr_, size_);
  }
  ptr_ = 0;
  size_ = 0;
}

}  // namespace kjudge::runner
