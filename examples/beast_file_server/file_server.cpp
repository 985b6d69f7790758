#include "file_server.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

// <utility> before Asio: Boost 1.74's awaitable.hpp uses std::exchange
// without including it.
// clang-format off
#include <utility>
#include <boost/asio.hpp>
// clang-format on
#include <algorithm>
#include <atomic>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <future>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace file_server {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

// ---- HTTP-dates (RFC 9110 §5.6.7: a recipient accepts all three formats) ----

std::string format_date(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buf;
}

std::optional<std::time_t> parse_date(const std::string& s) {
  for (const char* format : {"%a, %d %b %Y %H:%M:%S GMT", "%A, %d-%b-%y %H:%M:%S GMT",
                             "%a %b %e %H:%M:%S %Y"}) {
    std::tm tm{};
    const char* end = strptime(s.c_str(), format, &tm);
    if (end && *end == '\0') return timegm(&tm);
  }
  return std::nullopt;
}

// ---- Entity tags (RFC 9110 §8.8.3) ----

// `"*"` or a list of entity tags (commas between them); nullopt when
// malformed (a malformed precondition is ignored).
std::optional<std::vector<std::string>> tag_list(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  if (v == "*") return std::vector<std::string>{"*"};
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < v.size()) {
    while (i < v.size() && (v[i] == ' ' || v[i] == '\t' || v[i] == ',')) ++i;
    if (i == v.size()) break;
    const std::size_t start = i;
    if (v.substr(i, 2) == "W/") i += 2;
    if (i >= v.size() || v[i] != '"') return std::nullopt;
    const std::size_t close = v.find('"', i + 1);
    if (close == std::string_view::npos) return std::nullopt;
    for (char c : v.substr(i + 1, close - i - 1))
      if (static_cast<unsigned char>(c) < 0x21 || c == 0x7f) return std::nullopt;
    out.emplace_back(v.substr(start, close + 1 - start));
    i = close + 1;
  }
  if (out.empty()) return std::nullopt;
  return out;
}

std::string_view text(beast::string_view v) { return {v.data(), v.size()}; }

bool weak(const std::string& tag) { return tag.rfind("W/", 0) == 0; }
std::string opaque(const std::string& tag) { return weak(tag) ? tag.substr(2) : tag; }

// Does the list match the current tag (empty: no current representation)?
bool matches(const std::vector<std::string>& list, const std::string& current,
             bool strong) {
  if (current.empty()) return false;
  for (const std::string& t : list) {
    if (t == "*") return true;
    if (strong ? !weak(t) && !weak(current) && t == current
               : opaque(t) == opaque(current))
      return true;
  }
  return false;
}

// ---- The file store ----

struct File {
  bool exists = false;
  std::time_t mtime = 0;
  std::uint64_t size = 0;
};

File stat_file(const std::filesystem::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
  return {true, st.st_mtime, static_cast<std::uint64_t>(st.st_size)};
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Only plain names below the root: `/` then unreserved characters, no
// empty, `.` or `..` segment, no query.
bool plain_target(std::string_view t) {
  if (t.size() < 2 || t.front() != '/' || t.back() == '/') return false;
  std::size_t seg = 0;
  for (std::size_t i = 0; i <= t.size(); ++i) {
    if (i == t.size() || t[i] == '/') {
      const std::string_view s = t.substr(seg, i - seg);
      if (i > 0 && (s.empty() || s == "." || s == "..")) return false;
      seg = i + 1;
      continue;
    }
    const char c = t[i];
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' &&
        c != '~' && c != '-')
      return false;
  }
  return true;
}

// ---- The request's authority (RFC 9112 §3.2) ----

// A Host value this server accepts: a registered name (RFC 3986's reg-name:
// letters, digits, -._~!$&'()*+,;= and %HH) with an optional port. IP
// literals in brackets are refused too: stricter than the RFC, which allows
// refusing a host the server does not serve.
bool acceptable_host(std::string_view h) {
  static constexpr std::string_view kNameChars = "-._~!$&'()*+,;=";
  const std::size_t colon = h.find(':');
  const std::string_view name = h.substr(0, colon);
  for (std::size_t i = 0; i < name.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    if (c == '%' && i + 2 < name.size() &&
        std::isxdigit(static_cast<unsigned char>(name[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(name[i + 2]))) {
      i += 2;
    } else if (!std::isalnum(c) &&
               kNameChars.find(static_cast<char>(c)) == kNameChars.npos) {
      return false;
    }
  }
  if (colon == std::string_view::npos) return true;
  const std::string_view port = h.substr(colon + 1);
  return std::all_of(port.begin(), port.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// The path of an absolute-form target ("http://host/p" -> "/p"), whose
// authority replaces the Host field (RFC 9112 §3.2.2); nullopt for any other
// form.
std::optional<std::string> absolute_form_path(std::string_view t) {
  static constexpr std::string_view kScheme = "http://";
  if (t.size() < kScheme.size()) return std::nullopt;
  for (std::size_t i = 0; i < kScheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(t[i])) != kScheme[i]) return std::nullopt;
  const std::size_t slash = t.find('/', kScheme.size());
  return slash == std::string_view::npos ? std::string("/")
                                         : std::string(t.substr(slash));
}

class Handler {
 public:
  Handler(std::filesystem::path root, bool fast_etags)
      : root_(std::move(root)), fast_etags_(fast_etags) {}

  Response operator()(const Request& req) const {
    std::string target(req.target());
    // One valid Host, or 400 (RFC 9112 §3.2); an absolute-form target names
    // its own authority instead.
    if (auto path = absolute_form_path(target)) {
      target = std::move(*path);
    } else if (req.count(http::field::host) > 1 ||
               (req.version() >= 11 && req.count(http::field::host) == 0) ||
               !acceptable_host(std::string_view(req[http::field::host].data(),
                                                 req[http::field::host].size()))) {
      return status(req, http::status::bad_request);
    }
    if (!plain_target(target)) return status(req, http::status::bad_request);
    const std::filesystem::path path = root_ / target.substr(1);
    const File f = stat_file(path);
    const http::verb m = req.method();
    const bool safe = m == http::verb::get || m == http::verb::head;
    if (!safe && m != http::verb::put && m != http::verb::delete_) {
      Response r = status(req, http::status::method_not_allowed);
      r.set(http::field::allow, "GET, HEAD, PUT, DELETE");
      return r;
    }
    if ((safe || m == http::verb::delete_) && !f.exists)
      return status(req, http::status::not_found);
    const std::string content = f.exists ? read_file(path) : std::string();
    const std::string tag = f.exists ? etag(f, content) : std::string();
    if (auto refused = preconditions(req, f, tag, safe)) return *refused;
    if (safe) return show(req, f, tag, content);
    if (m == http::verb::delete_) {
      std::error_code ec;
      std::filesystem::remove(path, ec);
      return status(req, ec ? http::status::conflict : http::status::no_content);
    }
    return put(req, path, f.exists);
  }

 private:
  std::string etag(const File& f, const std::string& content) const {
    char buf[48];
    if (fast_etags_) {  // the planted bug: "mtime-size", as a strong tag
      std::snprintf(buf, sizeof buf, "\"%llx-%llx\"", static_cast<long long>(f.mtime),
                    static_cast<unsigned long long>(f.size));
    } else {  // FNV-1a of the content: one tag per content
      std::uint64_t h = 14695981039346656037ull;
      for (unsigned char c : content) h = (h ^ c) * 1099511628211ull;
      std::snprintf(buf, sizeof buf, "\"%016llx\"", static_cast<unsigned long long>(h));
    }
    return buf;
  }

  // RFC 9110 §13.2.2: If-Match, else If-Unmodified-Since; then
  // If-None-Match, else If-Modified-Since (GET/HEAD). A refusal, or nothing.
  std::optional<Response> preconditions(const Request& req, const File& f,
                                        const std::string& tag, bool safe) const {
    std::optional<std::vector<std::string>> if_match, if_none_match;
    if (auto h = req.find(http::field::if_match); h != req.end())
      if_match = tag_list(text(h->value()));
    if (auto h = req.find(http::field::if_none_match); h != req.end())
      if_none_match = tag_list(text(h->value()));
    auto date = [&](http::field name) -> std::optional<std::time_t> {
      auto h = req.find(name);
      return h == req.end() ? std::nullopt : parse_date(std::string(text(h->value())));
    };
    if (if_match) {
      if (!matches(*if_match, tag, true))
        return status(req, http::status::precondition_failed);
    } else if (auto d = date(http::field::if_unmodified_since); d && f.exists) {
      if (f.mtime > *d) return status(req, http::status::precondition_failed);
    }
    if (if_none_match) {
      if (matches(*if_none_match, tag, false))
        return safe ? not_modified(req, tag)
                    : status(req, http::status::precondition_failed);
    } else if (auto d = date(http::field::if_modified_since); d && safe) {
      if (f.mtime <= *d) return not_modified(req, tag);
    }
    return std::nullopt;
  }

  Response put(const Request& req, const std::filesystem::path& path,
               bool existed) const {
    {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out << req.body();
      if (!out) return status(req, http::status::conflict);  // e.g. no parent directory
    }
    const File f = stat_file(path);
    Response r = status(req, existed ? http::status::no_content : http::status::created);
    r.set(http::field::etag, etag(f, req.body()));
    r.set(http::field::last_modified, format_date(f.mtime));
    return r;
  }

  Response show(const Request& req, const File& f, const std::string& tag,
                const std::string& content) const {
    Response r = status(req, http::status::ok);
    r.set(http::field::content_type, "application/octet-stream");
    r.set(http::field::etag, tag);
    r.set(http::field::last_modified, format_date(f.mtime));
    r.body() = content;
    r.prepare_payload();
    if (req.method() == http::verb::head) r.body().clear();  // (Content-Length stays)
    return r;
  }

  Response not_modified(const Request& req, const std::string& tag) const {
    Response r = status(req, http::status::not_modified);
    r.set(http::field::etag, tag);
    return r;
  }

  static Response status(const Request& req, http::status s) {
    Response r{s, req.version()};
    r.set(http::field::server, "beast-file-server");
    r.set(http::field::date, format_date(std::time(nullptr)));
    r.keep_alive(req.keep_alive());
    if (s != http::status::no_content && s != http::status::not_modified)
      r.content_length(0);
    return r;
  }

  std::filesystem::path root_;
  bool fast_etags_;
};

// One connection: read a request, answer it, again (pipelined requests wait
// in the buffer), until the client closes or asks to.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket s, const Handler& h, std::atomic<int>& open)
      : stream_(std::move(s)), handler_(h), open_(open) {
    ++open_;
  }
  ~Session() { --open_; }
  void read() {
    req_ = {};
    http::async_read(stream_, buffer_, req_,
                     beast::bind_front_handler(&Session::on_read, shared_from_this()));
  }

 private:
  void on_read(beast::error_code ec, std::size_t) {
    if (ec == http::error::end_of_stream || ec == asio::error::eof) return close();
    if (ec) {  // not HTTP: 400, then close
      // Date on every 4xx from a server with a clock (RFC 9110 §6.6.1), the
      // unparsed request's answer too.
      res_ = Response{http::status::bad_request, 11};
      res_.set(http::field::server, "beast-file-server");
      res_.set(http::field::date, format_date(std::time(nullptr)));
      res_.keep_alive(false);
      res_.prepare_payload();
    } else {
      res_ = handler_(req_);
    }
    http::async_write(stream_, res_,
                      beast::bind_front_handler(&Session::on_write, shared_from_this()));
  }
  void on_write(beast::error_code ec, std::size_t) {
    if (ec) return;
    if (!res_.keep_alive()) return close();
    read();
  }
  void close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
  }
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  Request req_;
  Response res_;
  const Handler& handler_;
  std::atomic<int>& open_;  // the server's count of open connections
};

// A fuzzer's process often ends by abort() (a finding) or a kill, which runs
// no destructor: temporary roots are named after their process, and those of
// processes that are gone are removed before a new one is made.
std::filesystem::path fresh_temp_dir() {
  namespace fs = std::filesystem;
  const std::string prefix = "beast-file-server-";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::temp_directory_path(), ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
      fs::remove_all(e.path(), ec);
  }
  for (int i = 0; i < 1000; ++i) {
    auto p = fs::temp_directory_path() /
             (prefix + std::to_string(::getpid()) + "-" + std::to_string(i));
    if (fs::create_directory(p, ec)) return p;
  }
  throw std::runtime_error("cannot make a temporary directory");
}

}  // namespace

struct Server::Impl {
  explicit Impl(Options o)
      : owns_root(o.root.empty()),
        root(owns_root ? fresh_temp_dir() : o.root),
        handler(root, o.fast_etags),
        acceptor(io, {asio::ip::make_address("127.0.0.1"), o.port}) {
    accept();
    thread = std::thread([this] { io.run(); });
  }
  ~Impl() {
    io.stop();
    thread.join();
    if (owns_root) {
      std::error_code ec;
      std::filesystem::remove_all(root, ec);
    }
  }
  void accept() {
    acceptor.async_accept([this](beast::error_code ec, tcp::socket s) {
      if (!ec) {
        // A response's header and body go out in separate writes: without
        // this, Nagle holds the body until the client's delayed ACK (40 ms).
        s.set_option(tcp::no_delay(true), ec);
        std::make_shared<Session>(std::move(s), handler, sessions)->read();
      }
      accept();
    });
  }
  void clear() {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(root, ec))
      std::filesystem::remove_all(e.path(), ec);
  }

  bool owns_root;
  std::filesystem::path root;
  Handler handler;
  asio::io_context io;
  tcp::acceptor acceptor;
  std::atomic<int> sessions{0};
  std::thread thread;
};

Server::Server(Options options) : impl_(std::make_unique<Impl>(std::move(options))) {}
Server::~Server() = default;

std::uint16_t Server::port() const { return impl_->acceptor.local_endpoint().port(); }

void Server::reset() {
  // Requests sent on a connection that its client then closed may still be
  // in this server's hands: wait until every connection has ended (a
  // client's close ends it once its requests are served), so that nothing
  // from before the reset lands after it. Bounded: a stuck connection must
  // not hang the caller.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (impl_->sessions.load() > 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  std::promise<void> done;
  asio::post(impl_->io, [&] {
    impl_->clear();
    done.set_value();
  });
  done.get_future().wait();
}

}  // namespace file_server
