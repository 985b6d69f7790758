// The file-synchronizer plug-in's parsers: the answer-line parser never
// crashes and yields the same answers (and failure) however the bytes are
// cut; every answer object it yields read as a request by the harness's
// query parser, and applied to a small tree, never throws. Traps on any
// difference.
//   ./unison_codec_fuzzer corpora/fuzz/unison_codec_fuzzer
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dualfuzz/unison/codec.h"
#include "dualfuzz/unison/query.h"

namespace unison = dualfuzz::unison;
using dualfuzz::harness::Json;

namespace {

struct Outcome {
  std::vector<Json> answers;
  bool failed = false;
  bool operator==(const Outcome&) const = default;
};

Outcome parse(std::string_view bytes, std::size_t cut) {
  unison::JsonLineParser p;
  Outcome o;
  p.feed(bytes.substr(0, cut));
  while (auto r = p.next()) o.answers.push_back(*r);
  p.feed(bytes.substr(cut));
  p.on_eof();
  while (auto r = p.next()) o.answers.push_back(*r);
  o.failed = p.failed();
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  const Outcome whole = parse(in, in.size());
  const Outcome cut = parse(in, (data[0] * 7u) % (in.size() + 1));
  if (!(whole == cut)) __builtin_trap();
  unison::FileTree t;
  t.put("a", unison::Node::dir());
  t.put("a/b", unison::Node::file("x"));
  for (const Json& j : whole.answers) {
    auto q = unison::parse_query(j);
    if (!q) continue;
    if (q->op != unison::Query::Op::Sync) (void)unison::apply_file_op(t, *q);
    // A request the harness prints is one line, and parses back to itself.
    const std::string line = unison::print_request(j);
    if (line.find('\n') != line.size() - 1) __builtin_trap();
  }
  return 0;
}
