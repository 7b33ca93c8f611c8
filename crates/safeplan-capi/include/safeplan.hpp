// safeplan.hpp: a C++17 header-only wrapper over safeplan.h (libsafeplan_c).
//
// RAII types own the C handles and free them; text goes in as std::string_view; failures are
// exceptions of type safeplan::Error carrying the library's stable code (code()) and its
// message (what()). A refused monitor event is not an exception: it is a Verdict whose
// valid() is false and whose message() says why.
//
// Threads: a Task is immutable and may be shared by threads (copy it: copies share one
// compiled task). A Monitor or TimedMonitor belongs to one thread at a time.
#ifndef SAFEPLAN_HPP
#define SAFEPLAN_HPP

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "safeplan.h"

namespace safeplan {

/// A failure of the library: bad input (with file:line:col), a NULL handle, a panic caught
/// at the boundary. code() is the stable code, e.g. "undefined-predicate".
class Error : public std::runtime_error {
 public:
  Error(std::string code, const std::string& message)
      : std::runtime_error(message), code_(std::move(code)) {}
  const std::string& code() const noexcept { return code_; }

 private:
  std::string code_;
};

namespace detail {

/// Throw the error a C call set (and free it), when it returned NULL. `err` is the address
/// the call wrote its error to, read here, after the call: C++ leaves the order in which a
/// call's arguments are evaluated unspecified, so passing the error by value would read it
/// before the call had set it (GCC does), losing its code and message and leaking it.
template <typename T>
T* check(T* result, safeplan_error** err) {
  if (result != nullptr) return result;
  safeplan_error* e = err ? *err : nullptr;
  if (err) *err = nullptr;
  std::string code = e ? safeplan_error_code(e) : "unknown";
  std::string message = e ? safeplan_error_message(e) : "the call failed";
  safeplan_error_free(e);
  throw Error(std::move(code), message);
}

/// A NUL-terminated copy of `text`. A C string ends at its first NUL, so text holding one
/// would be cut there without a word: it is refused instead.
inline std::string c_str(std::string_view text) {
  if (text.find('\0') != std::string_view::npos) {
    throw Error("invalid-argument",
                "the text holds a NUL byte at offset " + std::to_string(text.find('\0')) +
                    ": the library reads text up to it; remove it");
  }
  return std::string(text);
}

}  // namespace detail

/// A verdict: of a plan (valid = feasible and, on a safety task, safe), or of one event a
/// monitor was asked about (valid = the event may happen).
class Verdict {
 public:
  explicit Verdict(safeplan_verdict* v) : v_(v, &safeplan_verdict_free) {}
  // A moved-from Verdict holds no verdict: it is not valid and says nothing (the C
  // functions answer false, -1 and NULL for a NULL verdict; NULL is read as "").
  bool valid() const noexcept { return safeplan_verdict_valid(v_.get()); }
  bool feasible() const noexcept { return safeplan_verdict_feasible(v_.get()); }
  bool safe() const noexcept { return safeplan_verdict_safe(v_.get()); }
  /// The 1-based step that failed or was dangerous; -1 when none.
  long failed_step() const noexcept { return safeplan_verdict_failed_step(v_.get()); }
  /// The sentence `safeplan validate` prints.
  std::string message() const { return text(safeplan_verdict_message(v_.get())); }
  /// `safeplan validate --json`'s fields as one JSON object.
  std::string json() const { return text(safeplan_verdict_json(v_.get())); }
  explicit operator bool() const noexcept { return valid(); }

 private:
  static std::string text(const char* s) { return s ? std::string(s) : std::string(); }
  std::unique_ptr<safeplan_verdict, void (*)(safeplan_verdict*)> v_;
};

/// A compiled task (PDDL domain and problem text). Copies share the compiled task.
class Task {
 public:
  Task(std::string_view domain, std::string_view problem) {
    safeplan_error* err = nullptr;
    auto d = detail::c_str(domain), p = detail::c_str(problem);
    t_.reset(detail::check(safeplan_task_new(d.c_str(), p.c_str(), &err), &err),
             &safeplan_task_free);
  }
  /// Validate a plan file's text (IPC, or timed for durative actions).
  Verdict validate(std::string_view plan) const {
    safeplan_error* err = nullptr;
    auto text = detail::c_str(plan);
    return Verdict(detail::check(safeplan_task_validate(t_.get(), text.c_str(), &err), &err));
  }
  /// Validate the plan an LLM reply states (read by the one reply reader).
  Verdict validate_reply(std::string_view reply) const {
    safeplan_error* err = nullptr;
    auto text = detail::c_str(reply);
    return Verdict(
        detail::check(safeplan_task_validate_reply(t_.get(), text.c_str(), &err), &err));
  }
  const safeplan_task* get() const noexcept { return t_.get(); }

 private:
  std::shared_ptr<safeplan_task> t_;
};

/// A step-by-step monitor of a sequential task, at its initial state.
class Monitor {
 public:
  explicit Monitor(const Task& task) {
    safeplan_error* err = nullptr;
    m_.reset(detail::check(safeplan_monitor_new(task.get(), &err), &err));
  }
  /// May `action` (`(name arg ...)`) run now? Nothing changes.
  Verdict check(std::string_view action) {
    safeplan_error* err = nullptr;
    auto text = detail::c_str(action);
    return Verdict(detail::check(safeplan_monitor_check(m_.get(), text.c_str(), &err), &err));
  }
  /// Run `action` when allowed; a refused action changes nothing.
  Verdict apply(std::string_view action) {
    safeplan_error* err = nullptr;
    auto text = detail::c_str(action);
    return Verdict(detail::check(safeplan_monitor_apply(m_.get(), text.c_str(), &err), &err));
  }

 private:
  struct Free {
    void operator()(safeplan_monitor* m) const noexcept { safeplan_monitor_free(m); }
  };
  std::unique_ptr<safeplan_monitor, Free> m_;
};

/// A monitor of durative actions: ask before each start and each end.
class TimedMonitor {
 public:
  explicit TimedMonitor(const Task& task) {
    safeplan_error* err = nullptr;
    m_.reset(detail::check(safeplan_timed_monitor_new(task.get(), &err), &err));
  }
  /// Start `action` at `time` when allowed; a refused start changes nothing.
  Verdict start(std::string_view action, double time) {
    safeplan_error* err = nullptr;
    auto text = detail::c_str(action);
    return Verdict(
        detail::check(safeplan_timed_monitor_start(m_.get(), text.c_str(), time, &err), &err));
  }
  /// End the running `action` at `time` when allowed; a refused end changes nothing.
  Verdict end(std::string_view action, double time) {
    safeplan_error* err = nullptr;
    auto text = detail::c_str(action);
    return Verdict(
        detail::check(safeplan_timed_monitor_end(m_.get(), text.c_str(), time, &err), &err));
  }
  /// Execute the instantaneous `action` at `time` when allowed; a refused one changes nothing.
  Verdict happen(std::string_view action, double time) {
    safeplan_error* err = nullptr;
    auto text = detail::c_str(action);
    return Verdict(
        detail::check(safeplan_timed_monitor_happen(m_.get(), text.c_str(), time, &err), &err));
  }

 private:
  struct Free {
    void operator()(safeplan_timed_monitor* m) const noexcept { safeplan_timed_monitor_free(m); }
  };
  std::unique_ptr<safeplan_timed_monitor, Free> m_;
};

/// The library's version.
inline std::string version() { return safeplan_version(); }

}  // namespace safeplan

#endif  // SAFEPLAN_HPP
