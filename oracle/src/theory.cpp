#include "dualfuzz/oracle/theory.h"

#include <functional>

namespace dualfuzz::oracle {

StringTheory::StringTheory(std::string marker) {
  if (marker.empty()) return;
  const std::size_t h = std::hash<std::string>{}(marker);
  rep_ = std::make_shared<const Rep>(Rep{std::move(marker), h});
}

std::string StringTheory::mark(std::string_view c) const {
  std::string s(marker());
  s += c;
  return s;
}

}  // namespace dualfuzz::oracle
