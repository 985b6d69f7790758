#pragma once

namespace dualfuzz::oracle {

namespace detail {
Sym rebuild(const Sym& s, std::vector<Sym> args);
}

template <typename F>
Sym substitute(const Sym& s, F&& leaf) {
  if (s.ground()) return s;
  if (s.is_var()) return leaf(s);
  std::vector<Sym> args;
  args.reserve(s.args().size());
  bool changed = false;
  for (const Sym& a : s.args()) {
    args.push_back(substitute(a, leaf));
    changed = changed || !(args.back() == a);
  }
  if (!changed) return s;
  return detail::rebuild(s, std::move(args));
}

}  // namespace dualfuzz::oracle
