// Jepsen histories as oracle traces (the outside check of the oracle).
//
// Each client process is a connection, `:invoke` a request sent on it, a
// return (`:ok`/`:fail`) the response received, in file order. `:info` (the
// client never learnt the outcome) closes the process's connection: the
// request may still take effect, its response is never observed, and Jepsen
// continues under a new process number.
//
//   auto trace = dualfuzz::specs::parse_jepsen_etcd(text);   // Result<Trace>
//   Verdict v = oracle::check(dualfuzz::specs::register_model(), *trace);
#pragma once

#include <string_view>
#include <vector>

#include "dualfuzz/oracle/oracle.h"
#include "dualfuzz/result.h"

namespace dualfuzz::specs {

using Trace = std::vector<oracle::Event>;

// etcd register histories: `INFO  jepsen.util - <proc> :invoke :read nil`.
// Requests/responses in the format of register.h.
Result<Trace> parse_jepsen_etcd(std::string_view text);
// EDN multi-key histories: `{:process 3, :type :invoke, :f :get, :key "k", :value nil}`.
// Requests/responses in the format of kv_store.h.
Result<Trace> parse_jepsen_kv(std::string_view text);

}  // namespace dualfuzz::specs
