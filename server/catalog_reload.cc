#include "server/catalog_reload.h"

#include <string>
#include <vector>

#include "common/log.h"
#include "google/protobuf/repeated_field.h"

namespace kjudge::server {
namespace {

constexpr size_t kMaxNamesPerList = 100;

void AddNames(const std::vector<std::string>& names, google::protobuf::RepeatedPtrField<std::string>* out) {
  for (size_t i = 0; i < names.size() && i < kMaxNamesPerList; ++i) *out->Add() = names[i];
}

}  // namespace

absl::StatusOr<v1::ReloadProblemsResponse> ReloadCatalog(ServerState* state) {
  absl::StatusOr<CatalogDiff> diff = state->catalog->Reload();
  if (!diff.ok()) {
    spdlog::error("problems reload from '{}': {}", state->catalog->root().string(), diff.status().message());
    return absl::FailedPreconditionError(diff.status().message());
  }
  v1::ReloadProblemsResponse response;
  response.set_added(static_cast<int64_t>(diff->added.size()));
  response.set_changed(static_cast<int64_t>(diff->changed.size()));
  response.set_removed(static_cast<int64_t>(diff->removed.size()));
  response.set_total(static_cast<int64_t>(state->catalog->size()));
  AddNames(diff->added, response.mutable_added_names());
  AddNames(diff->changed, response.mutable_changed_names());
  AddNames(diff->removed, response.mutable_removed_names());
  absl::StatusOr<int64_t> rerouted = state->jobs->RouteQueuedJobs(state->catalog->PyTorchOnlyNames());
  if (!rerouted.ok()) {
    // The catalog is already the new one; a later reload (or restart) reroutes again.
    spdlog::warn("problems reload: rerouting queued jobs failed: {}", rerouted.status().message());
  } else {
    response.set_rerouted_jobs(*rerouted);
  }
  if (state->events != nullptr) state->events->Notify();
  spdlog::info("problems reloaded from '{}': {} problems ({} added, {} changed, {} removed; {} queued jobs rerouted)",
               state->catalog->root().string(), response.total(), response.added(), response.changed(),
               response.removed(), response.rerouted_jobs());
  return response;
}

}  // namespace kjudge::server
