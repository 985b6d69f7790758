// Theories a protocol registers with the oracle: what its string values mean
// beyond equality. The one theory so far is the marked-string theory: a
// string may begin with a marker the protocol chooses; the rest is its core.
//
//   const StringTheory versions("~");          // "~7" is the core "7", marked
//   versions.core("~7");                       // "7"
//   versions.match("~7", "7", Marked::Allowed);   // true: same core
//   versions.match("~7", "7", Marked::Excluded);  // false: "~7" is marked
//   // In a model (symbolic.h), and for the oracle (server_model.h):
//   Sym same = match(Sym::lit("7"), Sym::var(0, Sort::Str), versions,
//                    Marked::Excluded);
//   ServerModel m{"versions", initial};
//   m.strings = versions;
//
// A default StringTheory has no marker: every string is its own core, and
// match is "equal and non-empty". A theory is an immutable handle (one shared
// pointer), so symbolic nodes carry it at the cost of a pointer copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace dualfuzz::oracle {

// Whether a match accepts marked strings, or only unmarked ones.
enum class Marked : std::uint8_t { Allowed, Excluded };

class StringTheory {
 public:
  StringTheory() = default;                   // no marker
  explicit StringTheory(std::string marker);  // "" means no marker

  std::string_view marker() const {
    return rep_ ? std::string_view(rep_->marker) : std::string_view();
  }
  bool has_marker() const { return rep_ != nullptr; }
  bool marked(std::string_view s) const {
    return rep_ && s.substr(0, rep_->marker.size()) == rep_->marker;
  }
  // `s` without its marker (one marker: a core may itself begin with one).
  std::string_view core(std::string_view s) const {
    return marked(s) ? s.substr(rep_->marker.size()) : s;
  }
  // The marked string of core `c`.
  std::string mark(std::string_view c) const;
  // Cores equal and non-empty (an empty core matches nothing), and with
  // Marked::Excluded neither string marked.
  bool match(std::string_view a, std::string_view b, Marked m) const {
    if (m == Marked::Excluded && (marked(a) || marked(b))) return false;
    const std::string_view ca = core(a);
    return !ca.empty() && ca == core(b);
  }

  std::size_t hash() const { return rep_ ? rep_->hash : 0; }
  friend bool operator==(const StringTheory& a, const StringTheory& b) {
    return a.rep_ == b.rep_ || (a.rep_ && b.rep_ && a.rep_->marker == b.rep_->marker);
  }

 private:
  struct Rep {
    std::string marker;  // never empty
    std::size_t hash;
  };
  std::shared_ptr<const Rep> rep_;  // null: no marker
};

}  // namespace dualfuzz::oracle
