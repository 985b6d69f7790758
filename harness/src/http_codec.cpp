#include "dualfuzz/harness/http_codec.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace dualfuzz::harness::http {
namespace {

bool tchar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}
std::string str_field(const Json& ir, const char* k, const char* def) {
  if (ir.is_object() && ir.contains(k) && ir[k].is_string())
    return ir[k].get<std::string>();
  return def;
}
std::string clean_value(std::string v) {
  v.erase(std::remove_if(v.begin(), v.end(),
                         [](char c) { return c == '\r' || c == '\n' || c == '\0'; }),
          v.end());
  return v;
}
std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
std::string trim(std::string_view s) {
  std::size_t a = 0, b = s.size();
  while (a < b && (s[a] == ' ' || s[a] == '\t')) ++a;
  while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t')) --b;
  return std::string(s.substr(a, b - a));
}

}  // namespace

std::string escape_bytes(std::string_view b, std::size_t max) {
  std::string out;
  for (std::size_t i = 0; i < b.size() && i < max; ++i) {
    unsigned char c = static_cast<unsigned char>(b[i]);
    if (c == '\r')
      out += "\\r";
    else if (c == '\n')
      out += "\\n";
    else if (c == '"' || c == '\\')
      out += std::string("\\") + static_cast<char>(c);
    else if (c >= 0x20 && c < 0x7f)
      out += static_cast<char>(c);
    else {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  if (b.size() > max) out += "...";
  return out;
}

std::string print_request(const Json& ir) {
  std::string method = str_field(ir, "method", "GET");
  method.erase(
      std::remove_if(method.begin(), method.end(), [](char c) { return !tchar(c); }),
      method.end());
  if (method.empty()) method = "GET";
  std::string path = clean_value(str_field(ir, "path", "/"));
  path.erase(std::remove(path.begin(), path.end(), ' '), path.end());
  if (path.empty()) path = "/";
  std::string body;
  if (ir.is_object() && ir.contains("body"))
    body = ir["body"].is_string() ? ir["body"].get<std::string>() : dump_json(ir["body"]);
  std::string out = method + " " + path + " HTTP/1.1\r\n";
  bool host = false;
  if (ir.is_object() && ir.contains("headers") && ir["headers"].is_object()) {
    for (const auto& [k, v] : ir["headers"].items()) {
      std::string name;
      for (char c : k)
        if (tchar(c)) name += c;
      std::string n = lower(name);
      if (name.empty() || n == "content-length" || n == "transfer-encoding") continue;
      host = host || n == "host";
      out += name + ": " +
             clean_value(v.is_string() ? v.get<std::string>() : dump_json(v)) + "\r\n";
    }
  }
  if (!host) out += "Host: localhost\r\n";
  if (!body.empty() || method == "PUT" || method == "POST")
    out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  out += "\r\n" + body;
  return out;
}

void ResponseParser::fail(const std::string& what, std::string_view bytes) {
  if (failed()) return;
  error_ = what + " at byte " + std::to_string(consumed_ + pos_) + ": \"" +
           escape_bytes(bytes) + "\"";
}

void ResponseParser::feed(std::string_view bytes) {
  if (failed()) return;
  buf_.append(bytes);
  run();
}

void ResponseParser::on_eof() {
  if (failed() || eof_) return;
  eof_ = true;
  run();
  if (failed()) return;
  if (state_ == State::UntilClose) {
    finish();
    return;
  }
  if (state_ != State::StatusLine || pos_ < buf_.size())
    fail("connection closed in the middle of a response",
         std::string_view(buf_).substr(pos_));
}

std::optional<Json> ResponseParser::next() {
  if (ready_.empty()) return std::nullopt;
  Json r = std::move(ready_.front());
  ready_.pop_front();
  return r;
}

bool ResponseParser::take_line(std::string& line) {
  std::size_t nl = buf_.find('\n', pos_);
  if (nl == std::string::npos) {
    if (buf_.size() - pos_ > kMaxHeaderBytes)
      fail("line longer than 64 KiB", std::string_view(buf_).substr(pos_, 80));
    return false;
  }
  std::size_t end = nl;
  if (end > pos_ && buf_[end - 1] == '\r') --end;  // RFC 9112 §2.2: a bare LF is accepted
  line.assign(buf_, pos_, end - pos_);
  header_bytes_ += nl + 1 - pos_;
  pos_ = nl + 1;
  if (header_bytes_ > kMaxHeaderBytes) fail("header section larger than 64 KiB", line);
  return true;
}

void ResponseParser::finish() {
  cur_["body"] = std::move(body_);
  body_.clear();
  int status = cur_["status"].get<int>();
  if (status >= 200) {  // 1xx responses are interim: the request still waits
    if (!methods_.empty()) methods_.pop_front();
    ready_.push_back(std::move(cur_));
  }
  cur_ = Json();
  state_ = State::StatusLine;
  header_bytes_ = 0;
}

void ResponseParser::start_body() {
  int status = cur_["status"].get<int>();
  const Json& h = cur_["headers"];
  std::string method = methods_.empty() ? "" : methods_.front();
  if (method == "HEAD" || status < 200 || status == 204 || status == 304) return finish();
  if (h.contains("transfer-encoding")) {
    std::string te = lower(h["transfer-encoding"].get<std::string>());
    auto last = te.rfind(',');
    if (trim(last == std::string::npos ? te : te.substr(last + 1)) == "chunked") {
      state_ = State::ChunkSize;
      return;
    }
    state_ = State::UntilClose;
    return;
  }
  if (h.contains("content-length")) {
    // A list of identical values is allowed (RFC 9110 §8.6); anything else is not.
    std::string v = h["content-length"].get<std::string>();
    std::optional<std::size_t> len;
    std::size_t a = 0;
    while (a <= v.size()) {
      std::size_t b = v.find(',', a);
      if (b == std::string::npos) b = v.size();
      std::string part = trim(std::string_view(v).substr(a, b - a));
      std::size_t n = 0;
      auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), n);
      if (part.empty() || ec != std::errc() || p != part.data() + part.size() ||
          (len && *len != n))
        return fail("invalid Content-Length", v);
      len = n;
      a = b + 1;
    }
    if (*len > kMaxBodyBytes) return fail("Content-Length above 16 MiB", v);
    remaining_ = *len;
    state_ = State::Body;
    if (remaining_ == 0) finish();
    return;
  }
  state_ = State::UntilClose;
}

void ResponseParser::run() {
  std::string line;
  while (!failed()) {
    switch (state_) {
      case State::StatusLine: {
        if (pos_ == buf_.size()) goto out;
        {
          // Fail fast on bytes that cannot start a response, even before a
          // line ends (a server sending garbage may never send a newline).
          std::string_view rest = std::string_view(buf_).substr(pos_);
          std::size_t n = std::min<std::size_t>(rest.size(), 5);
          if (rest[0] != '\r' && rest[0] != '\n' &&
              rest.substr(0, n) != std::string_view("HTTP/").substr(0, n)) {
            fail("malformed status line", rest.substr(0, rest.find('\n')));
            goto out;
          }
        }
        if (!take_line(line)) goto out;
        if (line.empty()) {
          // Tolerate a stray CRLF between messages (RFC 9112 §2.2).
          header_bytes_ = 0;
          continue;
        }
        // HTTP-version SP 3DIGIT SP [reason]
        if (line.size() < 12 || line.compare(0, 5, "HTTP/") != 0 ||
            !std::isdigit(static_cast<unsigned char>(line[5])) || line[6] != '.' ||
            !std::isdigit(static_cast<unsigned char>(line[7])) || line[8] != ' ' ||
            !std::isdigit(static_cast<unsigned char>(line[9])) ||
            !std::isdigit(static_cast<unsigned char>(line[10])) ||
            !std::isdigit(static_cast<unsigned char>(line[11])) ||
            (line.size() > 12 && line[12] != ' ')) {
          pos_ -= std::min(pos_, line.size() + 2);
          fail("malformed status line", line);
          goto out;
        }
        cur_ = Json::object();
        cur_["version"] = line.substr(0, 8);
        cur_["status"] = std::stoi(line.substr(9, 3));
        cur_["reason"] = line.size() > 13 ? line.substr(13) : "";
        cur_["headers"] = Json::object();
        state_ = State::Headers;
        break;
      }
      case State::Headers:
      case State::Trailers: {
        if (!take_line(line)) goto out;
        if (line.empty()) {
          if (state_ == State::Trailers) {
            finish();
          } else {
            start_body();
          }
          break;
        }
        if (line[0] == ' ' || line[0] == '\t') {
          fail("obsolete line folding in a header", line);
          goto out;
        }
        auto colon = line.find(':');
        if (colon == std::string::npos || colon == 0 ||
            !std::all_of(line.begin(), line.begin() + colon, tchar)) {
          fail("malformed header field", line);
          goto out;
        }
        if (state_ == State::Trailers) break;  // trailers are not part of the IR
        std::string name = lower(line.substr(0, colon));
        std::string value = trim(std::string_view(line).substr(colon + 1));
        Json& h = cur_["headers"];
        if (h.contains(name))
          h[name] = h[name].get<std::string>() + ", " + value;
        else
          h[name] = value;
        break;
      }
      case State::Body: {
        std::size_t n = std::min(remaining_, buf_.size() - pos_);
        body_.append(buf_, pos_, n);
        pos_ += n;
        remaining_ -= n;
        if (remaining_ > 0) goto out;
        finish();
        break;
      }
      case State::ChunkSize: {
        if (!take_line(line)) goto out;
        std::string size = trim(line.substr(0, line.find(';')));
        std::size_t n = 0;
        auto [p, ec] = std::from_chars(size.data(), size.data() + size.size(), n, 16);
        if (size.empty() || ec != std::errc() || p != size.data() + size.size()) {
          fail("malformed chunk size", line);
          goto out;
        }
        if (n > kMaxBodyBytes || body_.size() + n > kMaxBodyBytes) {
          fail("chunked body above 16 MiB", line);
          goto out;
        }
        remaining_ = n;
        state_ = n == 0 ? State::Trailers : State::ChunkData;
        break;
      }
      case State::ChunkData: {
        std::size_t n = std::min(remaining_, buf_.size() - pos_);
        body_.append(buf_, pos_, n);
        pos_ += n;
        remaining_ -= n;
        if (remaining_ > 0) goto out;
        state_ = State::ChunkEnd;
        break;
      }
      case State::ChunkEnd: {
        if (!take_line(line)) goto out;
        if (!line.empty()) {
          fail("chunk data longer than its size", line);
          goto out;
        }
        state_ = State::ChunkSize;
        break;
      }
      case State::UntilClose: {
        body_.append(buf_, pos_, std::string::npos);
        pos_ = buf_.size();
        if (body_.size() > kMaxBodyBytes) fail("close-delimited body above 16 MiB", "");
        goto out;
      }
    }
  }
out:
  // Drop what has been parsed so memory stays bounded by one message.
  if (pos_ > 0 && !failed()) {
    consumed_ += pos_;
    buf_.erase(0, pos_);
    pos_ = 0;
  }
}

}  // namespace dualfuzz::harness::http
