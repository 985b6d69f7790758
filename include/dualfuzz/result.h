// Result<T>: a value or an error message, for APIs whose failure is an
// expected outcome (malformed script, unfit path) rather than a bug.
//
//   dualfuzz::Result<int> r = parse_int("12");
//   if (!r) std::cerr << r.error() << "\n"; else use(*r);
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace dualfuzz {

struct Error {
  std::string message;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  const T& value() const& {
    if (!ok()) throw std::logic_error("Result::value() on error: " + error());
    return std::get<0>(v_);
  }
  T& value() & {
    if (!ok()) throw std::logic_error("Result::value() on error: " + error());
    return std::get<0>(v_);
  }
  T&& value() && {
    if (!ok()) throw std::logic_error("Result::value() on error: " + error());
    return std::get<0>(std::move(v_));
  }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  const std::string& error() const {
    if (ok()) throw std::logic_error("Result::error() on a value");
    return std::get<1>(v_).message;
  }

 private:
  std::variant<T, Error> v_;
};

inline Error make_error(std::string message) { return Error{std::move(message)}; }

}  // namespace dualfuzz
