// The C++ wrapper's error paths (issue 45), run under AddressSanitizer, LeakSanitizer and
// UBSan by .ci/capi.sh: every safeplan::Error keeps the library's code and message (the
// wrapper once read the C error before the call had set it, so every error said "unknown"
// and leaked), text with a NUL byte is refused rather than cut, and a moved-from Verdict
// answers without throwing.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>

#include "safeplan.hpp"

static int failures = 0;

static void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "FAILED: %s\n", what.c_str());
    ++failures;
  }
}

static const char* kDomain =
    "(define (domain d) (:requirements :strips) (:predicates (p ?x) (q ?x))\n"
    "  (:action a :parameters (?x) :precondition (p ?x) :effect (and (q ?x) (not (p ?x)))))";
static const char* kProblem =
    "(define (problem t) (:domain d) (:objects o1 o2) (:init (p o1) (p o2))\n"
    "  (:goal (and (q o1) (q o2))))";

int main() {
  // A domain with an undeclared predicate: the library's code and a message with its place.
  try {
    safeplan::Task bad(
        "(define (domain d) (:predicates (p))\n  (:action a :effect (undeclared)))", kProblem);
    expect(false, "a domain with an undeclared predicate must throw");
  } catch (const safeplan::Error& e) {
    expect(e.code() != "unknown", "the error keeps its code, got " + e.code());
    expect(std::string(e.what()).find("undeclared") != std::string::npos,
           std::string("the message names the predicate: ") + e.what());
  }
  // Text with a NUL byte is refused, never cut at the NUL.
  try {
    std::string domain(kDomain);
    domain.insert(10, 1, '\0');
    safeplan::Task cut(std::string_view(domain.data(), domain.size()), kProblem);
    expect(false, "a domain with a NUL byte must throw");
  } catch (const safeplan::Error& e) {
    expect(e.code() == "invalid-argument", "NUL: code invalid-argument, got " + e.code());
  }
  safeplan::Task task(kDomain, kProblem);
  try {
    std::string plan = "(a o1)\n(a o2)\n";
    plan.insert(7, 1, '\0');
    task.validate(std::string_view(plan.data(), plan.size()));
    expect(false, "a plan with a NUL byte must throw");
  } catch (const safeplan::Error& e) {
    expect(e.code() == "invalid-argument", "NUL in a plan: got " + e.code());
  }
  // A verdict, and one moved from: the moved-from one answers, invalid and silent.
  safeplan::Verdict v = task.validate("(a o1)\n(a o2)\n");
  expect(v.valid(), "the plan is valid: " + v.message());
  safeplan::Verdict w = std::move(v);
  expect(w.valid(), "the moved-to verdict keeps it");
  expect(!v.valid() && v.message().empty() && v.json().empty() && v.failed_step() == -1,  // NOLINT
         "a moved-from verdict is invalid and says nothing");
  // A refused monitor step is a verdict, not an exception; a reply is read by the one reader.
  safeplan::Monitor m(task);
  expect(!m.check("(a zz)").valid(), "an unknown object is refused");
  expect(task.validate_reply("1. (a o1) 2. (a o2)").valid(), "both steps of one line are read");
  if (failures) return 1;
  std::puts("C++ error paths: all passed");
  return 0;
}
