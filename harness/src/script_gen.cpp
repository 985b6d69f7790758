#include "dualfuzz/harness/script_gen.h"

namespace dualfuzz::harness {
namespace {
std::size_t pick(std::mt19937_64& rng, std::size_t n) { return rng() % n; }

std::string random_string(std::mt19937_64& rng) {
  static const char* words[] = {
      "",  "a",         "tag",         "/x", "\"q\"", "x/\"w\"",
      "é", "tab\there", "line\nbreak", "\\", "{}",    "1.(this).id"};
  return words[pick(rng, std::size(words))];
}
}  // namespace

Json random_json(std::mt19937_64& rng, int depth) {
  switch (pick(rng, depth > 0 ? 8 : 6)) {
    case 0:
      return nullptr;
    case 1:
      return pick(rng, 2) == 0;
    case 2:
      return static_cast<std::int64_t>(rng() % 2001) - 1000;
    case 3:
      return 0.5 * static_cast<double>(rng() % 7);
    case 4:
    case 5:
      return random_string(rng);
    case 6: {
      Json a = Json::array();
      for (std::size_t i = pick(rng, 4); i > 0; --i)
        a.push_back(random_json(rng, depth - 1));
      return a;
    }
    default: {
      Json o = Json::object();
      for (std::size_t i = pick(rng, 4); i > 0; --i)
        o[random_string(rng)] = random_json(rng, depth - 1);
      return o;
    }
  }
}

Jpath random_jpath(std::mt19937_64& rng) {
  std::vector<Jpath::Step> steps;
  for (std::size_t i = pick(rng, 4); i > 0; --i) {
    // emplace with in_place_type: GCC 12 warns (falsely) on moving the variant.
    if (pick(rng, 2))
      steps.emplace_back(std::in_place_type<Jpath::Field>,
                         Jpath::Field{random_string(rng)});
    else
      steps.emplace_back(std::in_place_type<Jpath::Index>,
                         Jpath::Index{1 + pick(rng, 3)});
  }
  return Jpath(std::move(steps));
}

Jexp random_jexp(std::mt19937_64& rng, const FunctionRegistry& fns, Label max_label,
                 int depth) {
  std::size_t choice = pick(rng, depth > 0 ? 6 : 4);
  if (choice == 0 && max_label > 0) {
    auto names = fns.names();
    return Jexp::ref({static_cast<Label>(1 + pick(rng, max_label)), random_jpath(rng),
                      names[pick(rng, names.size())]});
  }
  if (choice == 4) {
    std::vector<Jexp> items;
    for (std::size_t i = pick(rng, 4); i > 0; --i)
      items.push_back(random_jexp(rng, fns, max_label, depth - 1));
    return Jexp::array(std::move(items));
  }
  if (choice == 5) {
    std::vector<std::pair<std::string, Jexp>> f;
    for (std::size_t i = pick(rng, 4); i > 0; --i)
      f.emplace_back(random_string(rng), random_jexp(rng, fns, max_label, depth - 1));
    return Jexp::object(std::move(f));
  }
  return Jexp::scalar(random_json(rng, 0));
}

Script random_script(std::mt19937_64& rng, const FunctionRegistry& fns,
                     std::size_t max_steps) {
  Script s;
  std::vector<Label> sent;
  Label next = 1;
  for (std::size_t n = pick(rng, max_steps + 1); n > 0; --n) {
    switch (pick(rng, 8)) {
      case 0:
        if (!sent.empty()) {
          s.steps.emplace_back(std::in_place_type<WaitStep>,
                               WaitStep{sent[pick(rng, sent.size())]});
          break;
        }
        [[fallthrough]];
      case 1:
        s.steps.emplace_back(std::in_place_type<CloseStep>,
                             CloseStep{static_cast<ConnId>(pick(rng, 4))});
        break;
      case 2:
        s.steps.emplace_back(std::in_place_type<CommentStep>,
                             CommentStep{" " + random_string(rng).substr(0, 4)});
        break;
      default:
        s.steps.emplace_back(std::in_place_type<RequestStep>,
                             RequestStep{next, static_cast<ConnId>(pick(rng, 4)),
                                         random_jexp(rng, fns, next + 1)});
        sent.push_back(next);
        next += 2 + 2 * static_cast<Label>(pick(rng, 2));  // gaps: as after deletions
    }
  }
  return s;
}

}  // namespace dualfuzz::harness
