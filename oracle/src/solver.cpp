#include "dualfuzz/oracle/solver.h"

#include <stdexcept>
#include <string>
#include <utility>

#include "solver_backend.h"

#if DUALFUZZ_LAZY_Z3
#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <cstdlib>
#endif

namespace dualfuzz::oracle {
namespace {

using Factory = decltype(&dualfuzz_z3_backend_new);

#if DUALFUZZ_LAZY_Z3
constexpr const char* kModuleName = "libdualfuzz_z3.so";

// The directory of the program or shared library this code was linked into
// (dualfuzz, jepsen_bench, a test, libdualfuzz_afl_mutator.so), with a
// trailing '/'; empty when unknown.
std::string own_directory() {
  Dl_info info;
  link_map* map = nullptr;
  std::string path;
  if (dladdr1(reinterpret_cast<const void*>(&own_directory), &info,
              reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) != 0 &&
      map && map->l_name && map->l_name[0] != '\0') {
    path = map->l_name;
  } else {  // the main program's map has no name
    char buf[4096];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n > 0) path.assign(buf, static_cast<std::size_t>(n));
  }
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

Factory load_module() {
  // $DUALFUZZ_Z3_MODULE alone when set: an override that silently fell
  // back to another copy would hide the mistake.
  std::vector<std::string> tried;
  if (const char* env = std::getenv("DUALFUZZ_Z3_MODULE"); env && *env) {
    tried.emplace_back(env);
  } else {
    if (std::string dir = own_directory(); !dir.empty())
      tried.push_back(dir + kModuleName);
    tried.emplace_back(DUALFUZZ_Z3_MODULE_BUILD_PATH);  // the build tree's
  }
  std::string why;
  for (const std::string& path : tried) {
    // RTLD_LOCAL: Z3's and the module's symbols stay out of the program's
    // namespace. Never dlclose()d (back ends may outlive any one Solver).
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* e = dlerror();  // (it names the path)
      why += "\n  " + (e ? std::string(e) : path + ": cannot load");
      continue;
    }
    if (void* f = dlsym(handle, "dualfuzz_z3_backend_new"))
      return reinterpret_cast<Factory>(f);
    why += "\n  " + path + ": no dualfuzz_z3_backend_new";
  }
  // Never a silent Sat::Unknown for every query: that would hide violations.
  throw std::runtime_error(std::string("dualfuzz: cannot load the Z3 back end ") +
                           kModuleName +
                           " (set DUALFUZZ_Z3_MODULE to its path); tried:" + why);
}

// The module is loaded once per process: a function-local static, as the
// dlopen()ed handle is process-wide anyway. A failed load throws and is
// tried again at the next first query.
Factory factory() {
  static const Factory f = load_module();
  return f;
}
#else
Factory factory() { return &dualfuzz_z3_backend_new; }
#endif

}  // namespace

// The Z3 context (and, with DUALFUZZ_LAZY_Z3, libz3 itself) is loaded at the
// first query: it costs ~10 ms, and most checks (models over constants)
// never reach Z3.
Solver::Solver(unsigned timeout_ms, StringTheory strings)
    : timeout_ms_(timeout_ms), strings_(std::move(strings)) {}
Solver::~Solver() = default;

detail::SolverBackend& Solver::backend() {
  if (!backend_) {
    char error[512] = "";
    backend_.reset(
        factory()(detail::kSolverBackendAbi, timeout_ms_, error, sizeof error));
    if (!backend_)
      throw std::runtime_error(std::string("dualfuzz: Z3 back end: ") + error);
  }
  return *backend_;
}

Sat Solver::check(const std::vector<Sym>& formulas) {
  ++stats_.queries;
  const Sat s = backend().check(formulas, strings_);
  ++(s == Sat::Yes ? stats_.sat : s == Sat::No ? stats_.unsat : stats_.unknown);
  return s;
}

std::vector<std::pair<VarId, Json>> Solver::model(const std::vector<Sym>& formulas) {
  return backend().model(formulas, strings_);
}

}  // namespace dualfuzz::oracle
