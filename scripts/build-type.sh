# Sourced by scripts/setup.sh and scripts/demo.sh (not run): the one build
# type of build/. dualfuzz_build_type DIR prints $BUILD_TYPE when set (your
# choice: switching an existing tree rebuilds it), else the type cached in
# DIR if it was configured before (so that no script switches it by itself),
# else RelWithDebInfo (CMakeLists.txt's default, the evaluation's too).
# shellcheck shell=bash
dualfuzz_build_type() {
  local cached=""
  [ -f "$1/CMakeCache.txt" ] &&
    cached=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$1/CMakeCache.txt")
  echo "${BUILD_TYPE:-${cached:-RelWithDebInfo}}"
}
