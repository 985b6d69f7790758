// Entity tags as the HTTP model reads them (protocols/http/.../entity_tag.h), rebuilt on
// the oracle's theory API so the oracle's tests need no protocol: "W/" marks
// a weak tag; the strong comparison excludes marked tags.
//
//   EXPECT_TRUE(weak_match(Sym::lit("W/\"a\""), Sym::lit("\"a\"")).is_true());
#pragma once

#include "dualfuzz/oracle/symbolic.h"
#include "dualfuzz/oracle/theory.h"

namespace dualfuzz::oracle::tests {

inline const StringTheory& etags() {
  static const StringTheory t("W/");
  return t;
}
inline Sym strong_match(const Sym& a, const Sym& b) {
  return match(a, b, etags(), Marked::Excluded);
}
inline Sym weak_match(const Sym& a, const Sym& b) {
  return match(a, b, etags(), Marked::Allowed);
}

}  // namespace dualfuzz::oracle::tests
