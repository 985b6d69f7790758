// HTTP/1.1 codec (RFC 9112) between bytes and the IR of docs/http-ir.md.
//
//   std::string bytes = http::print_request({{"method","GET"},{"path","/a"}});
//   http::ResponseParser p;
//   p.expect("GET");                 // one call per request sent, in order
//   p.feed(chunk);                   // bytes as they arrive, split anywhere
//   while (auto r = p.next()) use(*r);
//   if (p.failed()) report(p.error());   // e.g. malformed status line at byte 0:
//                                        // "HTTX/1.1 200 OK\r\n"
//   http::RequestParser s;           // the server side, same style
//   s.feed(bytes);
//   while (auto q = s.next()) serve(*q);
//   if (s.failed()) answer_400_and_close();
//
// The parsers never throw and never read past their limits; malformed bytes
// become a protocol violation whose message shows them (escaped). Results do
// not depend on how the input is split into feed() calls.
#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

#include "dualfuzz/harness/ir.h"

namespace dualfuzz::http {

using Json = harness::Json;

inline constexpr std::size_t kMaxHeaderBytes = 64 * 1024;
inline constexpr std::size_t kMaxBodyBytes = 16 * 1024 * 1024;

// Request IR -> bytes. Always sends Host (default "localhost") and, for a
// body or for PUT/POST, Content-Length. The printer owns framing and is
// smuggling-proof: Content-Length / Transfer-Encoding headers of the IR are
// dropped, CR, LF and NUL are removed from header values, names and methods
// keep only token characters, the path loses whitespace and control bytes.
// Missing or mistyped fields get defaults (GET, "/", no headers, empty body;
// a non-string value is sent as its JSON text). Never throws. With `chunks`
// (an array of sizes) the body goes chunked instead (RFC 9112 §7.1), cut at
// those sizes, the rest in one more chunk, each size line carrying
// `chunk-ext` (a string) if any: the same content, framed as a server must
// also be able to read it.
//   print_request({{"method","PUT"},{"path","/a"},{"body","hello"},{"chunks",{2}}})
//   // ... "Transfer-Encoding: chunked\r\n\r\n2\r\nhe\r\n3\r\nllo\r\n0\r\n\r\n"
std::string print_request(const Json& ir);

// The IR a server parses from print_request(ir): what actually went on the
// wire, minus the framing headers the printer added (Content-Length, and Host
// when the IR had none; a chunked body keeps Transfer-Encoding: the model
// reads it). Traces and models should see this, not the raw IR,
// when the IR may contain bytes the printer sanitizes.
Json canonical_request(const Json& ir);
// The same, given print_request(ir) already made (the executor prints once).
Json canonical_request(const Json& ir, std::string_view printed);

// Response IR -> bytes (the tester as an origin server, docs/proxy.md):
// `status` (default 200, clamped to 100..599), `reason`, `headers`, `body`.
// Like print_request it owns framing (IR Content-Length and
// Transfer-Encoding dropped, values cleaned): the body goes with
// Content-Length, or in chunks when `chunked`; none for a HEAD request's
// answer (`head`: its Content-Length still names the body's size), 1xx, 204
// and 304. Never throws.
struct ResponseFraming {
  bool chunked = false;
  bool head = false;
};
std::string print_response(const Json& ir, ResponseFraming framing = {});

// Escapes bytes for messages: printable ASCII as is, others as \r \n \xHH.
std::string escape_bytes(std::string_view bytes, std::size_t max = 200);

namespace detail {

// The framing engine both parsers share (RFC 9112 §2-§7).
class MessageReader {
 public:
  enum class Role { kRequest, kResponse };
  explicit MessageReader(Role role) : role_(role) {}

  void expect(std::string method) { methods_.push_back(std::move(method)); }
  void feed(std::string_view bytes);
  void on_eof();
  std::optional<Json> next();
  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  bool between_messages() const { return state_ == State::kStart && buf_.empty(); }
  std::size_t pending_requests() const { return methods_.size(); }

 private:
  enum class State {
    kStart,
    kHeaders,
    kBody,
    kChunkSize,
    kChunkData,
    kChunkEnd,
    kTrailers,
    kUntilClose,
    kSwitched  // after a 101 or a 2xx to CONNECT: no longer HTTP
  };
  void run();
  bool step_start();
  bool step_field_lines();
  bool step_data();
  bool step_chunk_size();
  bool step_chunk_end();
  bool step_until_close();
  void fail(std::string_view what, std::size_t at, std::string_view bytes);
  // Next line without its terminator; false when incomplete (or failed).
  bool take_line(std::string_view& line);
  bool start_line(std::string_view line);
  bool header_line(std::string_view line);
  void start_body();
  void finish();

  Role role_;
  std::string buf_;
  std::size_t pos_ = 0;        // parse position in buf_
  std::size_t consumed_ = 0;   // stream bytes before buf_
  std::size_t line_at_ = 0;    // stream offset of the line take_line returned
  std::string_view raw_line_;  // that line with its terminator
  State state_ = State::kStart;
  Json cur_;
  std::string body_;
  std::size_t remaining_ = 0;
  std::size_t header_bytes_ = 0;
  std::deque<std::string> methods_;
  std::deque<Json> ready_;
  Json interim_ = Json::array();  // 1xx responses before the final one
  std::string error_;
  bool eof_ = false;
};

}  // namespace detail

// Responses of one connection, in order. Call expect(method) for each request
// sent (HEAD responses, 1xx, 204 and 304 have no body). Besides the merged
// "headers", a response IR keeps what the wire had: "fields", every field
// line in order as [name (lower case), value]; "interim", the 1xx responses
// that came before it ({"status", "fields"}), when any. A 101 (Switching
// Protocols) is its request's final response: what follows it on the
// connection is not HTTP/1.1, and is not read.
class ResponseParser {
 public:
  void expect(std::string method) { r_.expect(std::move(method)); }
  void feed(std::string_view bytes) { r_.feed(bytes); }
  // The peer closed: ends a close-delimited body, or reports truncation.
  void on_eof() { r_.on_eof(); }
  // The next complete response IR, in order.
  std::optional<Json> next() { return r_.next(); }
  bool failed() const { return r_.failed(); }
  const std::string& error() const { return r_.error(); }
  // True when no response is partially received.
  bool between_messages() const { return r_.between_messages(); }
  std::size_t pending_requests() const { return r_.pending_requests(); }

 private:
  detail::MessageReader r_{detail::MessageReader::Role::kResponse};
};

// Requests of one connection, in order (a server's view). The request IR also
// carries "version" ("HTTP/1.1" or "HTTP/1.0"). A failure is final: a server
// answers 400 and closes.
class RequestParser {
 public:
  void feed(std::string_view bytes) { r_.feed(bytes); }
  // The peer closed: reports a request cut short.
  void on_eof() { r_.on_eof(); }
  std::optional<Json> next() { return r_.next(); }
  bool failed() const { return r_.failed(); }
  const std::string& error() const { return r_.error(); }
  bool between_messages() const { return r_.between_messages(); }

 private:
  detail::MessageReader r_{detail::MessageReader::Role::kRequest};
};

}  // namespace dualfuzz::http
