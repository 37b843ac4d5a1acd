#include "worker/judge/cupti_library.h"

#include <dlfcn.h>

#include "worker/gpu/str_util.h"

#if __has_include(<cupti_activity.h>)
#include <cupti_activity.h>
#define KJUDGE_HAVE_CUPTI_HEADERS 1
#else
#define KJUDGE_HAVE_CUPTI_HEADERS 0
#endif

namespace kjudge::runner {
namespace {

template <typename Fn>
Fn Symbol(void* library, const char* name) {
  return reinterpret_cast<Fn>(dlsym(library, name));  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
}

#if KJUDGE_HAVE_CUPTI_HEADERS
constexpr int kSuccess = CUPTI_SUCCESS;
constexpr int kMemcpyKind = CUPTI_ACTIVITY_KIND_MEMCPY;
constexpr uint32_t kFlushForced = CUPTI_ACTIVITY_FLAG_FLUSH_FORCED;
#else
constexpr int kSuccess = 0;
constexpr int kMemcpyKind = 1;
constexpr uint32_t kFlushForced = 1;
#endif

}  // namespace

absl::StatusOr<CuptiLibrary> CuptiLibrary::Open() {
#if !KJUDGE_HAVE_CUPTI_HEADERS
  return absl::UnavailableError("this runner was built without the CUPTI headers");
#else
  // The loader's path first (LD_LIBRARY_PATH, as the bundle's env.sh sets it), then where the
  // CUDA toolkit keeps CUPTI in its two layouts.
  void* library = nullptr;
  std::string tried;
  for (const char* name : {"libcupti.so.13", "libcupti.so", "/usr/local/cuda/lib64/libcupti.so.13",
                           "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13"}) {
    library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library != nullptr) break;
    tried = Cat(tried, tried.empty() ? "" : ", ", name);
  }
  if (library == nullptr) {
    const char* err = dlerror();
    return absl::UnavailableError(Cat("CUPTI not loaded (it ships with the CUDA toolkit: put "
                                      "its lib64 or extras/CUPTI/lib64 on LD_LIBRARY_PATH); tried ", tried, ": ",
                                      err != nullptr ? err : "dlopen failed"));
  }
  CuptiLibrary lib;
  lib.register_ = Symbol<RegisterFn>(library, "cuptiActivityRegisterCallbacks");
  lib.enable_ = Symbol<KindFn>(library, "cuptiActivityEnable");
  lib.disable_ = Symbol<KindFn>(library, "cuptiActivityDisable");
  lib.flush_ = Symbol<FlushFn>(library, "cuptiActivityFlushAll");
  lib.next_record_ = Symbol<NextRecordFn>(library, "cuptiActivityGetNextRecord");
  lib.result_string_ = Symbol<ResultStringFn>(library, "cuptiGetResultString");
  if (lib.register_ == nullptr || lib.enable_ == nullptr || lib.disable_ == nullptr ||
      lib.flush_ == nullptr || lib.next_record_ == nullptr) {
    return absl::UnavailableError("CUPTI is missing an Activity API symbol");
  }
  return lib;
#endif
}

absl::Status CuptiLibrary::Check(int result, const char* call) const {
  if (result == kSuccess) return absl::OkStatus();
  const char* text = nullptr;
  if (result_string_ == nullptr || result_string_(result, &text) != kSuccess || text == nullptr) {
    text = "?";
  }
  return absl::InternalError(Cat(call, " failed (", result, "): ", text));
}

absl::Status CuptiLibrary::RegisterCallbacks(RequestFn request, CompleteFn complete) const {
  return Check(register_(request, complete), "cuptiActivityRegisterCallbacks");
}

absl::Status CuptiLibrary::EnableMemcpy(bool on) const {
  return on ? Check(enable_(kMemcpyKind), "cuptiActivityEnable(MEMCPY)")
            : Check(disable_(kMemcpyKind), "cuptiActivityDisable(MEMCPY)");
}

absl::Status CuptiLibrary::FlushAll() const {
  return Check(flush_(kFlushForced), "cuptiActivityFlushAll");
}

void CuptiLibrary::CollectMemcpys(uint8_t* buffer, size_t valid_size,
                                  std::vector<DeviceInterval>* out) const {
#if KJUDGE_HAVE_CUPTI_HEADERS
  void* record = nullptr;
  while (next_record_(buffer, valid_size, &record) == kSuccess) {
    const auto* activity = static_cast<const CUpti_Activity*>(record);
    if (activity->kind != CUPTI_ACTIVITY_KIND_MEMCPY) continue;
    const auto* m = static_cast<const CUpti_ActivityMemcpy6*>(record);
    out->push_back(DeviceInterval{static_cast<uint64_t>(m->start), static_cast<uint64_t>(m->end)});
  }
#else
  (void)buffer;
  (void)valid_size;
  (void)out;
#endif
}

}  // namespace kjudge::runner
