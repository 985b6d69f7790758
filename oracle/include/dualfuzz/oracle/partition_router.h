// Which partitions a request goes to (ServerModel::partition, ::reach):
// its own, and the existing ones its effect may reach; and whether a
// partition made later starts from the model's `unknown` tree. Shared by
// Oracle::observe and check() so both route alike.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "dualfuzz/oracle/server_model.h"

namespace dualfuzz::oracle {

class PartitionRouter {
 public:
  struct Route {
    std::string key;                   // the request's own partition
    // The partitions it reaches: existing ones, and those of its `touches`
    // keys (made now, so that its answer decides what it did to them).
    std::vector<std::string> foreign;
    // Those of `foreign` made now that start from ServerModel::unknown.
    std::vector<std::string> foreign_unknown;
    bool starts_unknown(const std::string& k) const {
      return std::find(foreign_unknown.begin(), foreign_unknown.end(), k) !=
             foreign_unknown.end();
    }
    // Made now, the own partition starts from ServerModel::unknown (an
    // earlier request reached its key).
    bool unknown = false;
  };
  // `existing`: the keys of the partitions made so far (before this request's own).
  Route route(const ServerModel& model, const Json& request,
              const std::vector<std::string>& existing);
  // The request as a partition it reaches (not its own) sees it.
  static Json foreign(const Json& request) { return Json{{"foreign", request}}; }

 private:
  std::vector<std::string> unsettled_;  // keys reached so far (with their subtrees)
  std::vector<std::string> parents_;
  bool unsettled(const std::string& key) const;
};

// `key` is `prefix` or below it (prefix + "/"); "" covers every "/" key.
bool within(const std::string& key, const std::string& prefix);

}  // namespace dualfuzz::oracle
