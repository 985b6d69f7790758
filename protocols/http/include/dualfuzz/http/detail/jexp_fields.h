// The members of a Jexp object as a list to edit and rebuild with
// Jexp::object: what the request generator and the shrinker's lighter
// variants do to a request or its headers.
//
//   Fields f = fields_of(&request, {"malformed"});  // the request without its defect
//   harness::Jexp lighter = harness::Jexp::object(std::move(f));
#pragma once

#include <algorithm>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dualfuzz/harness/jexp.h"

namespace dualfuzz::http::detail {

using Fields = std::vector<std::pair<std::string, harness::Jexp>>;

// The members of an object (any other Jexp, or null: none), in order, but
// those named in `except`.
inline Fields fields_of(const harness::Jexp* object,
                        std::initializer_list<std::string_view> except = {}) {
  Fields out;
  if (!object || object->kind() != harness::Jexp::Kind::Object) return out;
  for (std::size_t i = 0; i < object->keys().size(); ++i)
    if (std::find(except.begin(), except.end(), object->keys()[i]) == except.end())
      out.emplace_back(object->keys()[i], object->items()[i]);
  return out;
}

}  // namespace dualfuzz::http::detail
