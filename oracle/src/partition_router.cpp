#include "dualfuzz/oracle/partition_router.h"

#include <algorithm>

namespace dualfuzz::oracle {

bool within(const std::string& key, const std::string& prefix) {
  if (prefix.empty()) return key.starts_with('/');
  return key.starts_with(prefix) &&
         (key.size() == prefix.size() || key[prefix.size()] == '/');
}

PartitionRouter::Route PartitionRouter::route(const ServerModel& model,
                                              const Json& request,
                                              const std::vector<std::string>& existing) {
  Route r;
  if (model.partition)
    if (auto k = model.partition(request)) r.key = *k;
  if (!model.reach) return r;
  r.unknown = model.unknown && unsettled(r.key);
  ServerModel::Reach reach = model.reach(request);
  if (reach.own_subtree &&
      std::any_of(parents_.begin(), parents_.end(),
                  [&](const std::string& p) { return within(r.key, p); }))
    reach.changes.push_back(r.key);
  auto has = [](const std::vector<std::string>& v, const std::string& k) {
    return std::find(v.begin(), v.end(), k) != v.end();
  };
  for (const std::string& k : existing)
    if (k != r.key && (std::any_of(reach.changes.begin(), reach.changes.end(),
                                   [&](const std::string& c) { return within(k, c); }) ||
                       has(reach.touches, k)))
      r.foreign.push_back(k);
  // A touched key's partition is made now if need be: the request's answer
  // then decides, in it, whether the request changed it.
  for (const std::string& k : reach.touches)
    if (k != r.key && !has(existing, k) && !has(r.foreign, k)) {
      r.foreign.push_back(k);
      if (model.unknown && unsettled(k)) r.foreign_unknown.push_back(k);
    }
  unsettled_.insert(unsettled_.end(), reach.changes.begin(), reach.changes.end());
  parents_.insert(parents_.end(), reach.parents.begin(), reach.parents.end());
  return r;
}

bool PartitionRouter::unsettled(const std::string& key) const {
  return std::any_of(unsettled_.begin(), unsettled_.end(),
                     [&](const std::string& p) { return within(key, p); });
}

}  // namespace dualfuzz::oracle
