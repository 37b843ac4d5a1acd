// Tenant text: what of the server's own words a tenant (a submitter key) may read.
//
// Contract (docs/trust-model.md): no worker id and no other key's id reaches a tenant. New text
// is written without them at the source (job_store.cc); RedactForTenant is the last line at
// the API edge for text stored before that (and for any text a worker chose, e.g. a release
// reason): every worker id (`w-` and 16 hex digits, worker_registry.cc) becomes "a worker"
// ("worker w-..." becomes "the worker"), and every API key id (`kj_` and 8 hex digits,
// api_keys.cc) other than the viewer's own becomes "a key". Admins read the text as stored.
#pragma once

#include <string>
#include <string_view>

#include "kjudge/v1/kjudge.pb.h"

namespace kjudge::server {

// `text` with the ids above replaced; `own_key_id` stays (a tenant may read its own key id).
std::string RedactForTenant(std::string_view text, std::string_view own_key_id);

// A job as a tenant may read it: no worker id (Job.worker cleared) and its result's message
// redacted as above.
void RedactJobForTenant(v1::Job* job, std::string_view own_key_id);

}  // namespace kjudge::server
