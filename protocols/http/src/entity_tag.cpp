#include "dualfuzz/http/entity_tag.h"

namespace dualfuzz::http {

const oracle::StringTheory& entity_tags() {
  static const oracle::StringTheory tags("W/");
  return tags;
}

oracle::Sym strong_match(const oracle::Sym& a, const oracle::Sym& b) {
  return oracle::match(a, b, entity_tags(), oracle::Marked::Excluded);
}

oracle::Sym weak_match(const oracle::Sym& a, const oracle::Sym& b) {
  return oracle::match(a, b, entity_tags(), oracle::Marked::Allowed);
}

}  // namespace dualfuzz::http
