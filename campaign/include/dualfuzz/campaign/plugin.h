// A protocol plug-in as the campaign sees it: the Protocol value (codec,
// model, heuristics, triage) and, optionally, a server of its own that runs
// in this process (`--target inprocess[:ARG]`, the fuzz target's default).
// A Registry maps names to plug-ins (`--spec NAME`, $DUALFUZZ_PROTOCOL); it
// is a value the program builds, not a global that plug-ins register into.
//
//   campaign::Registry r;
//   r.add(my_plugin());                       // {protocol, in_process factory}
//   const campaign::Plugin* p = r.find("http");
//   auto server = p->in_process("lost-update");   // Result<unique_ptr<...>>
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dualfuzz/harness/protocol.h"
#include "dualfuzz/harness/transport.h"
#include "dualfuzz/result.h"

namespace dualfuzz::campaign {

// A server under test in this process, reached through a Transport (no
// sockets: the fuzz target's fast path, DESIGN.md "Performance facts").
class InProcessServer {
 public:
  virtual ~InProcessServer() = default;
  virtual harness::Transport& transport() = 0;
  // Back to the initial state: called before every execution.
  virtual void reset() = 0;
  // Non-empty: every execution's paths are sent under this prefix, as on
  // an external server (Protocol::namespace_request: HTTP sends `/a/b` as
  // `/PREFIXa/b`).
  // Constant keeps the bytes sent the same from run to run; a server that
  // may still serve the previous execution's requests after reset() (a
  // real server's late requests) gives each execution its own instead.
  virtual std::string path_namespace() const { return ""; }
};

struct Plugin {
  harness::Protocol protocol;
  // `inprocess[:ARG]`: a fresh server; ARG is the plug-in's to read (the
  // HTTP reference server takes a planted bug's name). Null when the
  // plug-in has no server of its own.
  std::function<Result<std::unique_ptr<InProcessServer>>(const std::string& arg)>
      in_process;
  // What ARG means, for --help and error messages.
  std::string in_process_help;
  // What `inprocess:ARG` is, for the first line of every report ("server
  // bug: lost-update"). Optional: "in-process server[: ARG]".
  std::function<std::string(const std::string& arg)> describe_in_process;

  // Its in-process server's planted bugs (`dualfuzz bugs --spec NAME`,
  // `serve --bug list`), each `inprocess:NAME` plants; `category` may be
  // empty. Null: none.
  struct PlantedBug {
    std::string name, category, description;
  };
  std::function<std::vector<PlantedBug>()> planted_bugs;
  // `dualfuzz serve`: its reference server standalone on 127.0.0.1:PORT
  // (0: any free port, which it prints) with a planted bug ("": none),
  // until SIGINT or SIGTERM; `origin`, HOST:PORT, for a server that
  // forwards (a proxy). Returns the process's exit code, after saying why
  // when it is not 0. Null: the plug-in has no server to serve.
  std::function<int(std::uint16_t port, const std::string& bug, const std::string& origin)>
      serve;

  // Findings on real servers judged by hand (judgements.h): the JSON text,
  // "" for none (`dualfuzz fuzz --known judged:SERVER`).
  std::string_view judgements;

  std::string describe(const std::string& arg) const {
    if (describe_in_process) return describe_in_process(arg);
    return arg.empty() ? "in-process server" : "in-process server: " + arg;
  }
};

class Registry {
 public:
  // Misuse fails loudly: a second plug-in under one name is a bug.
  void add(Plugin p);
  const Plugin* find(std::string_view name) const;
  std::vector<std::string> names() const;
  // "http, kv": for help texts.
  std::string joined_names() const;

 private:
  std::vector<Plugin> plugins_;
};

}  // namespace dualfuzz::campaign
