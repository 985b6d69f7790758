#include "dualfuzz/http/codec.h"

#include <algorithm>
#include <charconv>
#include <utility>

#include "dualfuzz/http/detail/field_text.h"
#include "dualfuzz/http/field_havoc.h"
#include "dualfuzz/http/malformation.h"

namespace dualfuzz::http {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
using detail::tchar;
bool is_token(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), tchar);
}
// Bytes a request-target may not contain: whitespace, controls, DEL.
bool bad_target_byte(char c) {
  return static_cast<unsigned char>(c) <= 0x20 || static_cast<unsigned char>(c) == 0x7f;
}
using detail::lower;
constexpr auto trim = detail::trim_ows;
std::string text_of(const Json& v) {
  return v.is_string() ? v.get<std::string>() : harness::dump_json(v);
}
std::string str_field(const Json& ir, const char* k, const char* def) {
  if (ir.is_object() && ir.contains(k) && ir[k].is_string())
    return ir[k].get<std::string>();
  return def;
}
std::string clean_value(std::string v) {
  std::erase_if(v, [](char c) { return c == '\r' || c == '\n' || c == '\0'; });
  return v;
}
// The last transfer coding of a Transfer-Encoding value is chunked.
bool chunked_last(const std::string& te) {
  std::string_view v = te;
  auto comma = v.rfind(',');
  return lower(trim(comma == std::string_view::npos ? v : v.substr(comma + 1))) ==
         "chunked";
}

}  // namespace

std::string escape_bytes(std::string_view b, std::size_t max) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < b.size() && i < max; ++i) {
    unsigned char c = static_cast<unsigned char>(b[i]);
    if (c == '\r') {
      out += "\\r";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (b.size() > max) out += "...";
  return out;
}

namespace {
// The IR's header fields as lines of `out`, names cleaned to tokens and
// values to one line; true when one is Host. The printer owns framing: the
// IR cannot smuggle a second message through Content-Length or
// Transfer-Encoding.
// A field the IR sends blind (field_havoc.h) replaces the one of its name.
bool print_fields(const Json& ir, std::string& out) {
  bool host = false;
  const std::optional<FieldLine> blind = havoc_line(ir);
  const std::string blind_name = blind ? lower(blind->name) : std::string();
  if (blind) {
    out += blind->name + ": " + blind->value + "\r\n";
    host = blind_name == "host";
  }
  if (!ir.is_object() || !ir.contains("headers") || !ir["headers"].is_object())
    return host;
  for (const auto& [k, v] : ir["headers"].items()) {
    std::string name = k;
    std::erase_if(name, [](char c) { return !tchar(c); });
    std::string n = lower(name);
    if (name.empty() || n == "content-length" || n == "transfer-encoding" ||
        n == blind_name)
      continue;
    // One Host line: a second one is a defect sent only when named
    // (malformation.h: two-hosts), "host" and "Host" in the IR are one.
    if (n == "host" && host) continue;
    host = host || n == "host";
    out += name + ": " + clean_value(text_of(v)) + "\r\n";
  }
  return host;
}
// One chunk (RFC 9112 §7.1): its size in hex with `ext`, the data; nothing
// for no data (a zero size ends the content).
void append_chunk(std::string& out, std::string_view data, std::string_view ext) {
  if (data.empty()) return;
  char hex[20];
  auto [end, ec] = std::to_chars(hex, hex + sizeof hex, data.size(), 16);
  (void)ec;
  out.append(hex, end);
  out += ext;
  out += "\r\n";
  out += data;
  out += "\r\n";
}
// The defect the IR names ("malformed", malformation.h), if any.
const Malformation* malformation_of(const Json& ir) {
  if (!ir.is_object()) return nullptr;
  auto it = ir.find("malformed");
  return it != ir.end() && it->is_string() ? find_malformation(it->get<std::string>())
                                           : nullptr;
}

std::string print_well_formed(const Json& ir);

}  // namespace

std::string print_request(const Json& ir) {
  std::string out = print_well_formed(ir);
  if (const Malformation* m = malformation_of(ir))
    if (auto broken = malform(out, *m)) return std::move(*broken);
  return out;
}

namespace {
std::string print_well_formed(const Json& ir) {
  std::string method = str_field(ir, "method", "GET");
  std::erase_if(method, [](char c) { return !tchar(c); });
  if (method.empty()) method = "GET";
  std::string path = str_field(ir, "path", "/");
  std::erase_if(path, bad_target_byte);
  if (path.empty()) path = "/";
  std::string body;
  if (ir.is_object() && ir.contains("body")) body = text_of(ir["body"]);
  // HTTP/1.0 when the IR asks (RFC 9112 §2.3), else HTTP/1.1.
  const char* version =
      str_field(ir, "version", "") == "HTTP/1.0" ? "HTTP/1.0" : "HTTP/1.1";
  std::string out = method + " " + path + " " + version + "\r\n";
  const bool host = print_fields(ir, out);
  if (!host) out += "Host: localhost\r\n";
  if (ir.is_object() && ir.contains("chunks") && ir["chunks"].is_array()) {
    // Chunked content (RFC 9112 §7.1): the body cut at the sizes listed,
    // the rest in a last chunk, each size line with the IR's chunk-ext.
    out += "Transfer-Encoding: chunked\r\n\r\n";
    std::string ext = str_field(ir, "chunk-ext", "");
    std::erase_if(ext, [](char c) { return !tchar(c) && c != '=' && c != ';'; });
    if (!ext.empty()) ext = ";" + ext;
    std::string_view rest = body;
    for (const Json& n : ir["chunks"]) {
      if (rest.empty()) break;
      if (!n.is_number_integer() || n.get<long long>() <= 0) continue;
      const std::size_t size = std::min<std::size_t>(
          static_cast<std::size_t>(n.get<long long>()), rest.size());
      append_chunk(out, rest.substr(0, size), ext);
      rest.remove_prefix(size);
    }
    append_chunk(out, rest, ext);
    return out + "0" + ext + "\r\n\r\n";
  }
  if (!body.empty() || method == "PUT" || method == "POST")
    out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  out += "\r\n";
  out += body;
  return out;
}
}  // namespace

std::string print_response(const Json& ir, ResponseFraming framing) {
  int status = 200;
  if (ir.is_object() && ir.contains("status") && ir["status"].is_number_integer())
    status = std::clamp(ir["status"].get<int>(), 100, 599);
  std::string reason = clean_value(str_field(ir, "reason", "Answer"));
  std::string body;
  if (ir.is_object() && ir.contains("body")) body = text_of(ir["body"]);
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + reason + "\r\n";
  print_fields(ir, out);
  // RFC 9112 §6.3: these never have content.
  if (status < 200 || status == 204 || status == 304) return out + "\r\n";
  if (framing.chunked && !framing.head) {
    out += "Transfer-Encoding: chunked\r\n\r\n";
    // Two chunks when there is something to split: a relay must join them.
    const std::size_t half = body.size() / 2;
    for (std::string_view part :
         {std::string_view(body).substr(0, half), std::string_view(body).substr(half)})
      append_chunk(out, part, "");
    return out + "0\r\n\r\n";
  }
  out += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  return framing.head ? out : out + body;
}

Json canonical_request(const Json& ir) {
  return canonical_request(ir, print_request(ir));
}

Json canonical_request(const Json& ir, std::string_view printed) {
  // A request sent with a defect: the request it breaks, named with the
  // defect (when the defect applied: the bytes differ from the well-formed
  // ones).
  if (const Malformation* m = malformation_of(ir)) {
    Json rest = ir;
    rest.erase("malformed");
    const std::string well_formed = print_well_formed(rest);
    Json q = canonical_request(rest, well_formed);
    if (printed != well_formed) q["malformed"] = std::string(m->name);
    return q;
  }
  // A field sent blind: the request without it, and the field as sent
  // (its bytes mean what the server's parser made of them). A "havoc"
  // member that sends no line (no name, a protected one) leaves the bytes
  // those of the well-formed rest, which are judged as such: marking it
  // blind judged nothing of it and of its path after it, so a create
  // answered 204 behind one went unseen (and a bug split into findings).
  if (ir.is_object() && ir.contains("havoc")) {
    Json rest = ir;
    rest.erase("havoc");
    Json q = canonical_request(rest, print_well_formed(rest));
    if (auto line = havoc_line(ir))
      q["havoc"] = {{"name", lower(line->name)}, {"value", line->value}};
    return q;
  }
  RequestParser p;
  p.feed(printed);
  auto q = p.next();
  if (!q) return ir;  // unreachable: the printer always frames one request
  if ((*q)["version"] != "HTTP/1.0") q->erase("version");  // (1.1: the default)
  Json& h = (*q)["headers"];
  h.erase("content-length");
  bool had_host = false;
  if (ir.is_object() && ir.contains("headers") && ir["headers"].is_object())
    for (const auto& [k, v] : ir["headers"].items()) {
      std::string name = k;
      std::erase_if(name, [](char c) { return !tchar(c); });
      had_host = had_host || lower(name) == "host";
    }
  if (!had_host) h.erase("host");
  // A resource of the site (model.h: HttpRequest::site) stays one.
  if (ir.is_object() && ir.contains("site")) (*q)["site"] = ir["site"];  // (or "shared")
  return *q;
}

namespace detail {

void MessageReader::fail(std::string_view what, std::size_t at, std::string_view bytes) {
  if (failed()) return;
  error_ = std::string(what) + " at byte " + std::to_string(at) + ": \"" +
           escape_bytes(bytes) + "\"";
}

void MessageReader::feed(std::string_view bytes) {
  if (failed() || eof_) return;
  buf_.append(bytes);
  run();
}

void MessageReader::on_eof() {
  if (failed() || eof_) return;
  eof_ = true;
  run();
  if (failed()) return;
  if (state_ == State::kUntilClose) return finish();
  if (state_ == State::kSwitched) return;
  if (state_ != State::kStart || pos_ < buf_.size())
    fail(role_ == Role::kResponse ? "connection closed in the middle of a response"
                                  : "connection closed in the middle of a request",
         consumed_ + pos_, std::string_view(buf_).substr(pos_));
}

std::optional<Json> MessageReader::next() {
  if (ready_.empty()) return std::nullopt;
  Json r = std::move(ready_.front());
  ready_.pop_front();
  return r;
}

bool MessageReader::take_line(std::string_view& line) {
  std::size_t nl = buf_.find('\n', pos_);
  if (nl == std::string::npos) {
    // +1: the line may still end in CR, which is not part of it.
    if (buf_.size() - pos_ > kMaxHeaderBytes + 1)
      fail("line longer than 64 KiB", consumed_ + pos_,
           std::string_view(buf_).substr(pos_, 80));
    return false;
  }
  line_at_ = consumed_ + pos_;
  raw_line_ = std::string_view(buf_).substr(pos_, nl + 1 - pos_);
  line = raw_line_.substr(0, raw_line_.size() - 1);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);  // bare LF is fine
  pos_ = nl + 1;
  if (line.size() > kMaxHeaderBytes) {
    fail("line longer than 64 KiB", line_at_, raw_line_.substr(0, 80));
    return false;
  }
  // RFC 9110 §5.5: CR and NUL inside a line are invalid and dangerous.
  if (line.find_first_of(std::string_view("\r\0", 2)) != std::string_view::npos) {
    fail("bare CR or NUL in a line", line_at_, raw_line_);
    return false;
  }
  if (state_ == State::kHeaders || state_ == State::kTrailers) {
    header_bytes_ += raw_line_.size();
    if (header_bytes_ > kMaxHeaderBytes) {
      fail("header section larger than 64 KiB", line_at_, raw_line_.substr(0, 80));
      return false;
    }
  }
  return true;
}

bool MessageReader::start_line(std::string_view line) {
  cur_ = Json::object();
  if (role_ == Role::kResponse) {
    // HTTP-version SP 3DIGIT SP [reason]; a missing reason is tolerated.
    bool ok = line.size() >= 12 && line.substr(0, 5) == "HTTP/" && is_digit(line[5]) &&
              line[6] == '.' && is_digit(line[7]) && line[8] == ' ' &&
              is_digit(line[9]) && is_digit(line[10]) && is_digit(line[11]) &&
              (line.size() == 12 || line[12] == ' ');
    int status =
        ok ? (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0') : 0;
    if (!ok || status < 100 || status > 599) {
      fail(ok ? "status code out of range" : "malformed status line", line_at_,
           raw_line_);
      return false;
    }
    cur_["status"] = status;
    cur_["fields"] = Json::array();
    cur_["reason"] = line.size() > 13 ? std::string(line.substr(13)) : std::string();
    cur_["version"] = std::string(line.substr(0, 8));
  } else {
    // method SP request-target SP HTTP-version, single spaces.
    auto sp1 = line.find(' ');
    auto sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
    if (sp2 == std::string_view::npos) {
      fail("malformed request line", line_at_, raw_line_);
      return false;
    }
    std::string_view method = line.substr(0, sp1);
    std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
    std::string_view version = line.substr(sp2 + 1);
    if (!is_token(method) || target.empty() ||
        std::any_of(target.begin(), target.end(), bad_target_byte)) {
      fail("malformed request line", line_at_, raw_line_);
      return false;
    }
    if (version != "HTTP/1.1" && version != "HTTP/1.0") {
      fail("unsupported HTTP version", line_at_, raw_line_);
      return false;
    }
    cur_["method"] = std::string(method);
    cur_["path"] = std::string(target);
    cur_["version"] = std::string(version);
  }
  cur_["headers"] = Json::object();
  return true;
}

bool MessageReader::header_line(std::string_view line) {
  if (line.front() == ' ' || line.front() == '\t') {
    fail("obsolete line folding in a header", line_at_, raw_line_);
    return false;
  }
  auto colon = line.find(':');
  if (colon == std::string_view::npos || !is_token(line.substr(0, colon))) {
    fail("malformed header field", line_at_, raw_line_);
    return false;
  }
  if (state_ == State::kTrailers) return true;  // trailers are not part of the IR
  std::string name = lower(line.substr(0, colon));
  std::string_view value = trim(line.substr(colon + 1));
  if (role_ == Role::kResponse) cur_["fields"].push_back({name, std::string(value)});
  Json& h = cur_["headers"];
  // Repeated fields combine into one list (RFC 9110 §5.3); empty members are
  // dropped (§5.6.1 says to ignore them), so the IR prints back to itself.
  auto it = h.find(name);
  // RFC 9112 §3.2: a request with more than one Host line is refused (its
  // values joined could even read as one valid Host: "" twice).
  if (it != h.end() && role_ == Role::kRequest && name == "host") {
    fail("more than one Host field line", line_at_, raw_line_);
    return false;
  }
  if (it == h.end()) {
    h[name] = std::string(value);
  } else if (!value.empty()) {
    auto& s = it->get_ref<std::string&>();
    if (!s.empty()) s.append(", ");
    s.append(value);
  }
  return true;
}

void MessageReader::finish() {
  cur_["body"] = std::move(body_);
  body_.clear();
  const int status = role_ == Role::kResponse ? cur_["status"].get<int>() : 0;
  // A 1xx response is interim: its request still waits (but for a 101,
  // whose request's answer comes in the new protocol).
  const bool interim = role_ == Role::kResponse && status < 200 && status != 101;
  // After a 101, or a 2xx to CONNECT (a tunnel "immediately after the empty
  // line that concludes the header fields", RFC 9110 §9.3.6), the connection
  // no longer speaks HTTP.
  const bool switched =
      status == 101 || (status >= 200 && status < 300 && !methods_.empty() &&
                        methods_.front() == "CONNECT");
  if (interim) {
    interim_.push_back({{"status", status}, {"fields", std::move(cur_["fields"])}});
  } else {
    if (role_ == Role::kResponse && !methods_.empty()) methods_.pop_front();
    if (!interim_.empty()) cur_["interim"] = std::exchange(interim_, Json::array());
    ready_.push_back(std::move(cur_));
  }
  cur_ = Json();
  state_ = switched ? State::kSwitched : State::kStart;
  header_bytes_ = 0;
}

void MessageReader::start_body() {
  const Json& h = cur_["headers"];
  auto te = h.find("transfer-encoding");
  auto cl = h.find("content-length");
  std::size_t at = consumed_ + pos_;
  if (role_ == Role::kResponse) {
    int status = cur_["status"].get<int>();
    const std::string method = methods_.empty() ? "" : methods_.front();
    // (A 2xx to CONNECT has no content: its connection is a tunnel, §6.3.)
    if (method == "HEAD" || status < 200 || status == 204 || status == 304 ||
        (method == "CONNECT" && status < 300))
      return finish();
    if (te != h.end()) {  // RFC 9112 §6.3: Transfer-Encoding overrides Content-Length
      state_ =
          chunked_last(te->get<std::string>()) ? State::kChunkSize : State::kUntilClose;
      return;
    }
    if (cl == h.end()) {
      state_ = State::kUntilClose;
      return;
    }
  } else {
    if (te != h.end()) {
      // Only chunked framing is understood, and both headers at once is the
      // classic smuggling vector: refuse (RFC 9112 §6.1, §6.3).
      if (!chunked_last(te->get<std::string>()) || cl != h.end())
        return fail("unacceptable Transfer-Encoding", at, te->get<std::string>());
      state_ = State::kChunkSize;
      return;
    }
    if (cl == h.end()) return finish();
  }
  // A list of identical values is allowed (RFC 9110 §8.6); anything else is not.
  const std::string& v = cl->get<std::string>();
  std::optional<std::size_t> len;
  std::string_view rest = v;
  while (true) {
    auto comma = rest.find(',');
    std::string_view part = trim(rest.substr(0, comma));
    std::size_t n = 0;
    auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), n);
    if (part.empty() || ec != std::errc() || p != part.data() + part.size() ||
        (len && *len != n))
      return fail("invalid Content-Length", at, v);
    len = n;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  if (*len > kMaxBodyBytes) return fail("Content-Length above 16 MiB", at, v);
  remaining_ = *len;
  state_ = State::kBody;
  if (remaining_ == 0) finish();
}

// Each step consumes what its state can; false: it needs more bytes.
bool MessageReader::step_start() {
  if (pos_ == buf_.size()) return false;
  // Fail fast on bytes that cannot start a message, before a line ends
  // (a peer sending garbage may never send a newline).
  std::string_view rest = std::string_view(buf_).substr(pos_);
  bool plausible =
      rest[0] == '\r' || rest[0] == '\n' ||
      (role_ == Role::kResponse
           ? rest.substr(0, 5) == std::string_view("HTTP/").substr(
                                      0, std::min<std::size_t>(rest.size(), 5))
           : tchar(rest[0]));
  if (!plausible) {
    std::size_t nl = rest.find('\n');
    fail(role_ == Role::kResponse ? "malformed status line" : "malformed request line",
         consumed_ + pos_, rest.substr(0, nl == rest.npos ? rest.size() : nl + 1));
    return true;
  }
  std::string_view line;
  if (!take_line(line)) return false;
  if (line.empty()) return true;  // a stray CRLF between messages (RFC 9112 §2.2)
  if (start_line(line)) state_ = State::kHeaders;
  return true;
}

bool MessageReader::step_field_lines() {  // headers or trailers
  std::string_view line;
  if (!take_line(line)) return false;
  if (!line.empty()) {
    header_line(line);
  } else if (state_ == State::kTrailers) {
    finish();
  } else {
    start_body();
  }
  return true;
}

bool MessageReader::step_data() {  // a Content-Length body or one chunk's data
  std::size_t n = std::min(remaining_, buf_.size() - pos_);
  body_.append(buf_, pos_, n);
  pos_ += n;
  remaining_ -= n;
  if (remaining_ > 0) return false;
  if (state_ == State::kBody)
    finish();
  else
    state_ = State::kChunkEnd;
  return true;
}

bool MessageReader::step_chunk_size() {
  std::string_view line;
  if (!take_line(line)) return false;
  // chunk-size [BWS ; chunk-ext]
  std::string_view size = line.substr(0, line.find(';'));
  while (!size.empty() && (size.back() == ' ' || size.back() == '\t'))
    size.remove_suffix(1);
  std::size_t n = 0;
  auto [p, ec] = std::from_chars(size.data(), size.data() + size.size(), n, 16);
  if (size.empty() || ec != std::errc() || p != size.data() + size.size()) {
    fail("malformed chunk size", line_at_, raw_line_);
    return true;
  }
  if (n > kMaxBodyBytes - body_.size()) {
    fail("chunked body above 16 MiB", line_at_, raw_line_);
    return true;
  }
  remaining_ = n;
  state_ = n == 0 ? State::kTrailers : State::kChunkData;
  return true;
}

bool MessageReader::step_chunk_end() {
  std::string_view line;
  if (!take_line(line)) return false;
  if (!line.empty()) fail("chunk data longer than its size", line_at_, raw_line_);
  state_ = State::kChunkSize;
  return true;
}

bool MessageReader::step_until_close() {
  body_.append(buf_, pos_, std::string::npos);
  pos_ = buf_.size();
  if (body_.size() > kMaxBodyBytes)  // at the first byte beyond the limit
    fail("close-delimited body above 16 MiB",
         consumed_ + pos_ - body_.size() + kMaxBodyBytes, "");
  return false;
}

void MessageReader::run() {
  bool more = true;
  while (more && !failed()) {
    switch (state_) {
      case State::kStart:
        more = step_start();
        break;
      case State::kHeaders:
      case State::kTrailers:
        more = step_field_lines();
        break;
      case State::kBody:
      case State::kChunkData:
        more = step_data();
        break;
      case State::kChunkSize:
        more = step_chunk_size();
        break;
      case State::kChunkEnd:
        more = step_chunk_end();
        break;
      case State::kUntilClose:
        more = step_until_close();
        break;
      case State::kSwitched:
        pos_ = buf_.size();
        more = false;
        break;
    }
  }
  // Drop what has been parsed so memory stays bounded by one message.
  if (pos_ > 0 && !failed()) {
    consumed_ += pos_;
    buf_.erase(0, pos_);
    pos_ = 0;
  }
}

}  // namespace detail
}  // namespace dualfuzz::http
