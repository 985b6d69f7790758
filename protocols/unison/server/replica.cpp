#include "dualfuzz/unison/replica.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace dualfuzz::unison {
namespace fs = std::filesystem;

namespace {
std::string mode_text(mode_t m) {
  std::string s = "000";
  s[0] = static_cast<char>('0' + ((m >> 6) & 7));
  s[1] = static_cast<char>('0' + ((m >> 3) & 7));
  s[2] = static_cast<char>('0' + (m & 7));
  return s;
}
mode_t mode_bits(const std::string& s) {
  return static_cast<mode_t>(std::stoi(s, nullptr, 8));
}

bool hidden(const std::string& name) { return name.rfind(".unison", 0) == 0; }

// While alive, `path` (a directory or file) is owner-rwx; its mode comes back after.
class Unlock {
 public:
  explicit Unlock(const std::string& path) : path_(path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0 && (st.st_mode & S_IRWXU) != S_IRWXU &&
        !S_ISLNK(st.st_mode)) {
      old_ = st.st_mode & 07777;
      ::chmod(path.c_str(), old_ | S_IRWXU);
      changed_ = true;
    }
  }
  ~Unlock() {
    if (changed_) ::chmod(path_.c_str(), old_);
  }
  Unlock(const Unlock&) = delete;
  Unlock& operator=(const Unlock&) = delete;

 private:
  std::string path_;
  mode_t old_ = 0;
  bool changed_ = false;
};

void check(int rc, const char* what, const std::string& path) {
  if (rc != 0)
    throw std::system_error(errno, std::generic_category(),
                            std::string("harness: ") + what + " " + path);
}

void write_file(const std::string& path, const std::string& content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  check(fd < 0 ? -1 : 0, "open", path);
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      ::close(fd);
      check(-1, "write", path);
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  if (s.size() > 4 * kMaxContent) s.resize(4 * kMaxContent);
  return s;
}

void walk(const std::string& dir, const std::string& rel, FileTree& out, int depth) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (hidden(name)) continue;
    const std::string p = join(rel, name);
    struct stat st {};
    if (::lstat(e.path().c_str(), &st) != 0) continue;
    Node n;
    n.mode = mode_text(st.st_mode);
    if (S_ISDIR(st.st_mode)) {
      n.kind = Node::Kind::Dir;
      out.put(p, n);
      if (depth < 8) walk(e.path().string(), p, out, depth + 1);
    } else if (S_ISREG(st.st_mode)) {
      n.kind = Node::Kind::File;
      n.content = read_file(e.path().string());
      out.put(p, n);
    } else {
      n.kind = Node::Kind::Other;
      out.put(p, n);
    }
  }
}
}  // namespace

TempDir::TempDir() {
  const char* t = std::getenv("TMPDIR");
  std::string tmpl = std::string(t && *t ? t : "/tmp") + "/dualfuzz-unison-XXXXXX";
  if (!::mkdtemp(tmpl.data())) check(-1, "mkdtemp", tmpl);
  path_ = tmpl;
}

TempDir::~TempDir() {
  make_writable(path_);
  std::error_code ec;
  fs::remove_all(path_, ec);
}

void make_writable(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || S_ISLNK(st.st_mode)) return;
  if ((st.st_mode & S_IRWXU) != S_IRWXU)
    ::chmod(path.c_str(), (st.st_mode & 07777) | S_IRWXU);
  if (!S_ISDIR(st.st_mode)) return;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(path, ec)) make_writable(e.path().string());
}

DiskReplica::DiskReplica(std::string root) : root_(std::move(root)) {
  std::error_code ec;
  fs::create_directories(root_, ec);
  ::chmod(root_.c_str(), 0755);
}

Json DiskReplica::apply(const Query& q) {
  const std::string full = root_ + "/" + q.path;
  const std::string parent =
      q.path.find('/') == std::string::npos ? root_ : root_ + "/" + parent_of(q.path);
  struct stat st {
  }, pst{};
  const bool exists = ::lstat(full.c_str(), &st) == 0;
  const bool parent_dir = ::lstat(parent.c_str(), &pst) == 0 && S_ISDIR(pst.st_mode);
  switch (q.op) {
    case Query::Op::Write: {
      if (!parent_dir) return failure("no parent directory");
      if (exists && !S_ISREG(st.st_mode)) return failure("not a file");
      {
        Unlock p(parent);
        std::optional<Unlock> f;
        if (exists) f.emplace(full);
        write_file(full, q.content);
      }
      if (!exists) check(::chmod(full.c_str(), 0644), "chmod", full);
      if (exists && q.same_time) {
        // A write within one timestamp tick: the file keeps its times.
        const struct timespec times[2] = {st.st_atim, st.st_mtim};
        check(::utimensat(AT_FDCWD, full.c_str(), times, AT_SYMLINK_NOFOLLOW),
              "utimensat", full);
      }
      return Json{{"ok", true}};
    }
    case Query::Op::Mkdir: {
      if (!parent_dir) return failure("no parent directory");
      if (exists) return failure("exists");
      Unlock p(parent);
      check(::mkdir(full.c_str(), 0755), "mkdir", full);
      check(::chmod(full.c_str(), 0755), "chmod", full);
      return Json{{"ok", true}};
    }
    case Query::Op::Rm: {
      if (!exists) return failure("no such path");
      Unlock p(parent);
      make_writable(full);
      fs::remove_all(full);
      return Json{{"ok", true}};
    }
    case Query::Op::Chmod:
      if (!exists) return failure("no such path");
      check(::chmod(full.c_str(), mode_bits(q.mode)), "chmod", full);
      return Json{{"ok", true}};
    case Query::Op::Read: {
      if (!exists || !S_ISREG(st.st_mode)) return failure("not a file");
      std::optional<Unlock> f;
      if ((st.st_mode & S_IRUSR) == 0) f.emplace(full);
      return Json{{"ok", true}, {"content", read_file(full)}};
    }
    case Query::Op::Ls: {
      const std::string dir = q.path.empty() ? root_ : full;
      struct stat dst {};
      if (::lstat(dir.c_str(), &dst) != 0 || !S_ISDIR(dst.st_mode))
        return failure("not a directory");
      FileTree t;
      walk(dir, "", t, 8);  // (depth 8: names only)
      return Json{{"ok", true}, {"names", t.children("")}};
    }
    case Query::Op::Sync:
      break;
  }
  return failure("not a file operation");
}

FileTree DiskReplica::snapshot() const {
  FileTree t;
  walk(root_, "", t, 0);
  return t;
}

void DiskReplica::assign(const FileTree& t) {
  make_writable(root_);
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root_, ec))
    if (!hidden(e.path().filename().string())) fs::remove_all(e.path());
  for (const auto& [p, n] : t.nodes()) {
    const std::string full = root_ + "/" + p;
    if (n.is_dir())
      check(::mkdir(full.c_str(), 0755), "mkdir", full);
    else if (n.is_file())
      write_file(full, n.content);
  }
  // Modes last, children before parents (a read-only directory is filled first).
  for (auto it = t.nodes().rbegin(); it != t.nodes().rend(); ++it)
    if (!it->second.mode.empty())
      check(::chmod((root_ + "/" + it->first).c_str(), mode_bits(it->second.mode)),
            "chmod", root_ + "/" + it->first);
}

}  // namespace dualfuzz::unison
