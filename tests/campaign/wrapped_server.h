// Test servers: the reference server in process, seen through a transport
// that changes bytes on their way (a bug the reference has not, a glitch
// once, a Date that lags), for campaign tests that need such a server.
//
//   class NoDate final : public ForwardingTransport {
//     using ForwardingTransport::ForwardingTransport;
//     std::vector<Incoming> receive(std::chrono::milliseconds t) override { ... }
//   };
//   // --target inprocess[:BUG], seen through NoDate:
//   campaign::Plugin p = wrapped<NoDate>(http::plugin());
//   // that bug always, whatever the target says:
//   campaign::Plugin q = wrapped<NoDate>(http::plugin(), "two-step-writes");
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "dualfuzz/campaign/plugin.h"
#include "dualfuzz/harness/transport.h"
#include "dualfuzz/http/date.h"
#include "support/forwarding_transport.h"

namespace dualfuzz::campaign {

using test_support::ForwardingTransport;

// An in-process server whose transport is `Wrap` over the inner one's.
template <class Wrap>
class WrappedServer final : public InProcessServer {
 public:
  explicit WrappedServer(std::unique_ptr<InProcessServer> s)
      : inner_(std::move(s)), wrap_(inner_->transport()) {}
  harness::Transport& transport() override { return wrap_; }
  void reset() override { inner_->reset(); }
  std::string path_namespace() const override { return inner_->path_namespace(); }

 private:
  std::unique_ptr<InProcessServer> inner_;
  Wrap wrap_;
};

// The reference server answering a creating or replacing PUT as lighttpd
// 1.4.69 may under load: without Last-Modified, and with a Date (cached
// once a second) `kLag` seconds behind the file's time, on the first PUT
// answer and every `kEvery`th after it.
template <int kLag, int kEvery = 1>
class LaggingPutDate final : public ForwardingTransport {
 public:
  using ForwardingTransport::ForwardingTransport;
  std::vector<Incoming> receive(std::chrono::milliseconds timeout) override {
    std::vector<Incoming> in = t_.receive(timeout);
    for (Incoming& i : in) {
      if (!i.bytes.starts_with("HTTP/1.1 201") && !i.bytes.starts_with("HTTP/1.1 204"))
        continue;
      if (const std::size_t at = i.bytes.find("\r\nLast-Modified: ");
          at != std::string::npos)
        i.bytes.erase(at, i.bytes.find("\r\n", at + 2) - at);
      if (puts_++ % kEvery != 0) continue;
      if (const std::size_t at = i.bytes.find("\r\nDate: "); at != std::string::npos) {
        const std::size_t from = at + 8, to = i.bytes.find("\r\n", from);
        if (auto t = http::parse_http_date(i.bytes.substr(from, to - from)))
          i.bytes.replace(from, to - from, http::format_http_date(*t - kLag));
      }
    }
    return in;
  }

 private:
  int puts_ = 0;
};

// The reference server with tags as nginx makes them (the file's time):
// another one after every PUT, and none on a PUT's answer. Tag "N" is seen
// as "N-eK-tag", K the PUTs answered so far on this transport (across
// plays); a request's "N-eK-tag" reaches the server as "N" while K is
// current and as "N-stale" after, so a tag copied as a literal matches in
// its own play only.
class FreshTagPerPut final : public ForwardingTransport {
 public:
  using ForwardingTransport::ForwardingTransport;
  void send(harness::ConnId c, std::string_view bytes) override {
    static const std::regex tag("\"([0-9]+)-e([0-9]+)-tag\"");
    std::string out;
    std::string_view rest = bytes;
    std::cmatch m;
    while (std::regex_search(rest.data(), rest.data() + rest.size(), m, tag)) {
      out.append(rest.substr(0, static_cast<std::size_t>(m.position(0))));
      const bool current = m.str(2) == std::to_string(puts_);
      out += "\"" + m.str(1) + (current ? "" : "-stale") + "\"";
      rest.remove_prefix(static_cast<std::size_t>(m.position(0) + m.length(0)));
    }
    out.append(rest);
    t_.send(c, out);
  }
  std::vector<Incoming> receive(std::chrono::milliseconds timeout) override {
    std::vector<Incoming> in = t_.receive(timeout);
    for (Incoming& i : in) {
      const std::size_t at = i.bytes.find("\r\nETag: \"");
      if (at == std::string::npos) continue;
      const std::size_t end = i.bytes.find("\r\n", at + 2);
      if (i.bytes.starts_with("HTTP/1.1 201") || i.bytes.starts_with("HTTP/1.1 204")) {
        ++puts_;
        i.bytes.erase(at, end - at);
      } else {
        i.bytes.insert(end - 1, "-e" + std::to_string(puts_) + "-tag");
      }
    }
    return in;
  }

 private:
  int puts_ = 0;
};

// `p` with its in-process servers wrapped; `arg`, when given, replaces the
// target's argument (inprocess:ARG) for the inner server.
template <class Wrap>
Plugin wrapped(Plugin p, std::optional<std::string> arg = std::nullopt) {
  auto inner = p.in_process;
  p.in_process = [inner,
                  arg](const std::string& a) -> Result<std::unique_ptr<InProcessServer>> {
    auto s = inner(arg.value_or(a));
    if (!s) return make_error(s.error());
    return std::unique_ptr<InProcessServer>(new WrappedServer<Wrap>(std::move(*s)));
  };
  return p;
}

}  // namespace dualfuzz::campaign
