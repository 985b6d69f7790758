#pragma once

namespace dualfuzz::oracle {

namespace detail {
Sym rebuild(const Sym& s, std::vector<Sym> args);
}

template <typename F>
Sym substitute(const Sym& s, F&& leaf) {
  if (s.ground()) return s;
  if (s.is_var()) return leaf(s);
  // Most subterms come back unchanged: allocate only at the first change.
  const std::vector<Sym>& in = s.args();
  std::vector<Sym> args;
  for (std::size_t i = 0; i < in.size(); ++i) {
    Sym a = substitute(in[i], leaf);
    if (args.empty()) {
      if (a == in[i]) continue;
      args.reserve(in.size());
      args.assign(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(i));
    }
    args.push_back(std::move(a));
  }
  if (args.empty()) return s;
  return detail::rebuild(s, std::move(args));
}

}  // namespace dualfuzz::oracle
