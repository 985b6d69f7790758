// HTTP/1.1 codec (RFC 9112) between bytes and the IR of docs/script-language.md.
//
//   std::string bytes = http::print_request({{"method","GET"},{"path","/a"}});
//   http::ResponseParser p;
//   p.expect("GET");                 // one call per request sent, in order
//   p.feed(chunk);                   // bytes as they arrive, split anywhere
//   while (auto r = p.next()) use(*r);
//   if (p.failed()) report(p.error());   // e.g. malformed status line at byte 0:
//   "HTTX/1.1 ..."
//
// The parser never throws and never reads past its limits; malformed bytes
// become a protocol violation whose message shows them (escaped).
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <string_view>

#include "dualfuzz/harness/ir.h"

namespace dualfuzz::harness::http {

inline constexpr std::size_t kMaxHeaderBytes = 64 * 1024;
inline constexpr std::size_t kMaxBodyBytes = 16 * 1024 * 1024;

// Request IR -> bytes. Always sends Host (default "localhost") and, for a
// body or for PUT/POST, Content-Length. Header names and values are
// sanitized (CR, LF and NUL dropped; names restricted to token characters),
// so an IR can never smuggle a second request. Missing or mistyped fields
// get defaults (GET, "/").
std::string print_request(const Json& ir);

// Escapes bytes for messages: printable ASCII as is, others as \r \n \xHH.
std::string escape_bytes(std::string_view bytes, std::size_t max = 200);

class ResponseParser {
 public:
  // The method of the next request sent on this connection (HEAD responses
  // have no body), in order.
  void expect(std::string method) { methods_.push_back(std::move(method)); }
  void feed(std::string_view bytes);
  // The peer closed: ends a close-delimited body, or reports truncation.
  void on_eof();
  // The next complete response, in order.
  std::optional<Json> next();

  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  // True when no response is partially received.
  bool between_messages() const { return state_ == State::StatusLine && buf_.empty(); }
  std::size_t pending_requests() const { return methods_.size(); }

 private:
  enum class State {
    StatusLine,
    Headers,
    Body,
    ChunkSize,
    ChunkData,
    ChunkEnd,
    Trailers,
    UntilClose
  };
  void run();
  void fail(const std::string& what, std::string_view bytes);
  bool take_line(std::string& line);  // false: need more bytes
  void start_body();
  void finish();

  std::string buf_;
  std::size_t pos_ = 0;       // parse position in buf_
  std::size_t consumed_ = 0;  // bytes of the stream before buf_
  State state_ = State::StatusLine;
  Json cur_;
  std::string body_;
  std::size_t remaining_ = 0;
  std::size_t header_bytes_ = 0;
  std::deque<std::string> methods_;
  std::deque<Json> ready_;
  std::string error_;
  bool eof_ = false;
};

}  // namespace dualfuzz::harness::http
