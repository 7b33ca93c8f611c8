/* A fuzz harness over every entry point of the C API, run by .ci/capi.sh under
 * AddressSanitizer, LeakSanitizer and UndefinedBehaviorSanitizer for a bounded time.
 *
 * Inputs are mutations (byte flips, insertions of PDDL tokens, deletions, truncations,
 * splices, invalid UTF-8, NULL) of the example tasks, plans and replies, and times from a
 * set of edge values (negative, NaN, infinities, subnormals, huge) and random ones. Every
 * call's result is inspected through every accessor and freed. What must hold: no crash, no
 * sanitizer report, no leak; a NULL result always comes with an error that has a code and a
 * message (and never "internal-panic"); a verdict's accessors answer. Deterministic: the
 * seed is the second argument (default 45), so a failure is replayed by running it again.
 *
 * Usage: fuzz_capi REPO_ROOT [SEED] [SECONDS]. Prints the calls made; exit 1 on a broken
 * contract. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "safeplan.h"
#include "slurp.h"

static uint64_t state = 45;
static uint64_t next(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}
static size_t below(size_t n) { return n ? (size_t)(next() % n) : 0; }

static const char *tokens[] = {"(", ")", "(and ", "(not ", "?x", " - ", ":parameters", ":effect",
                               "(increase (danger) 1)", "(define", ";", "\n", "0.5: ", "[2]",
                               "\xff", "\xc3\x28", "\xe2\x82", "1e308", "-1", "(when ", "\"",
                               "Plan:", "1. ", "then ", "(move stove table)", "(pick-up soup stove)"};

/* A mutation of `seed` (malloc'd, NUL-terminated), or NULL one time in 40. */
static char *mutate(const char *seed) {
  if (below(40) == 0) return NULL;
  size_t n = strlen(seed), cap = n * 2 + 256;
  char *out = malloc(cap);
  memcpy(out, seed, n + 1);
  int edits = (int)below(8);
  for (int e = 0; e < edits; e++) {
    n = strlen(out);
    switch (below(5)) {
      case 0: /* flip a byte (a NUL truncates) */
        if (n) out[below(n)] ^= (char)(1 + below(255));
        break;
      case 1: { /* insert a token */
        const char *t = tokens[below(sizeof tokens / sizeof *tokens)];
        size_t at = below(n + 1), k = strlen(t);
        if (n + k + 1 < cap) {
          memmove(out + at + k, out + at, n - at + 1);
          memcpy(out + at, t, k);
        }
        break;
      }
      case 2: { /* delete a run */
        if (!n) break;
        size_t at = below(n), k = 1 + below(n - at < 16 ? n - at : 16);
        memmove(out + at, out + at + k, n - at - k + 1);
        break;
      }
      case 3: /* truncate */
        out[below(n + 1)] = '\0';
        break;
      default: { /* duplicate a run (splice with itself) */
        if (!n) break;
        size_t at = below(n), k = 1 + below(n - at < 64 ? n - at : 64);
        if (n + k + 1 < cap) {
          memmove(out + at + k, out + at, n - at + 1);
          memmove(out + at, out + at + k, k);
        }
        break;
      }
    }
  }
  return out;
}

static double a_time(void) {
  static const double edges[] = {0.0, -1.0, -0.0, 1e308, -1e308, 5e-324, 0.01, 2.0, 2.01, 3.0, 1e9};
  switch (below(6)) {
    case 0: return NAN;
    case 1: return INFINITY;
    case 2: return -INFINITY;
    case 3: return edges[below(sizeof edges / sizeof *edges)];
    default: return (double)below(20000) / 1000.0;
  }
}

static long calls = 0, broken = 0;
/* The text of the call in progress, printed with a broken contract so it can be replayed. */
static const char *input = NULL;

/* The error contract: a NULL result has an error with a code and a message, never a panic. */
static void check_error(safeplan_error *err, const char *what) {
  const char *code = safeplan_error_code(err), *message = safeplan_error_message(err);
  if (!err || !code || !message || !*code || !*message || strcmp(code, "internal-panic") == 0) {
    fprintf(stderr, "broken contract in %s: code %s, message %s\n", what, code ? code : "(null)",
            message ? message : "(null)");
    if (input) {
      fprintf(stderr, "input: \"");
      for (const unsigned char *c = (const unsigned char *)input; *c; c++)
        fprintf(stderr, (*c < 32 || *c > 126 || *c == '"' || *c == '\\') ? "\\x%02x" : "%c", *c);
      fprintf(stderr, "\"\n");
    }
    broken++;
  }
  safeplan_error_free(err);
}

/* Read a verdict through every accessor, then free it. */
/* `err` is read here, after the call that set it returned: the order in which a call's
 * arguments are evaluated is unspecified in C, so `consume(f(&err), err, ...)` would read it
 * before `f` ran (the bug issue 45 found in safeplan.hpp). */
static void consume(safeplan_verdict *v, safeplan_error **err, const char *what) {
  calls++;
  if (!v) {
    check_error(*err, what);
    return;
  }
  volatile long sum = safeplan_verdict_valid(v) + safeplan_verdict_feasible(v) + safeplan_verdict_safe(v) +
                      safeplan_verdict_failed_step(v);
  (void)sum;
  const char *m = safeplan_verdict_message(v), *j = safeplan_verdict_json(v);
  if (!m || !j || j[0] != '{') {
    fprintf(stderr, "broken contract in %s: a verdict without its message or JSON\n", what);
    broken++;
  }
  safeplan_verdict_free(v);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: fuzz_capi REPO_ROOT [SEED] [SECONDS]\n");
    return 2;
  }
  if (argc > 2) state = strtoull(argv[2], NULL, 10) | 1;
  double seconds = argc > 3 ? atof(argv[3]) : 20.0;
  const char *root = argv[1];
  char *seeds[][3] = {
      {slurp(root, "examples/tasks/hot-soup/domain.pddl"), slurp(root, "examples/tasks/hot-soup/problem.pddl"),
       slurp(root, "examples/tasks/hot-soup/unsafe.plan")},
      {slurp(root, "examples/temporal/hot-drink-carry/domain.pddl"),
       slurp(root, "examples/temporal/hot-drink-carry/problem.pddl"),
       slurp(root, "examples/temporal/hot-drink-carry/plans/unsafe.plan")},
      {slurp(root, "examples/temporal/stove-deadline/domain.pddl"),
       slurp(root, "examples/temporal/stove-deadline/problem.pddl"),
       slurp(root, "examples/temporal/stove-deadline/plans/unsafe.plan")},
  };
  const size_t kinds = sizeof seeds / sizeof *seeds;
  const char *actions[] = {"(pick-up soup stove)", "(move stove table)", "(pick-up tea kitchen)",
                           "(carry tea kitchen hallway)", "(switch-on)", "(boil-water)", "(a) (b)", ""};
  /* The pristine tasks, kept compiled: most monitor calls go to a task that compiles. */
  safeplan_task *good[3];
  for (size_t k = 0; k < kinds; k++) good[k] = safeplan_task_new(seeds[k][0], seeds[k][1], NULL);
  clock_t until = clock() + (clock_t)(seconds * CLOCKS_PER_SEC);
  long rounds = 0;
  while (clock() < until) {
    rounds++;
    size_t k = below(kinds);
    char *d = below(3) ? NULL : mutate(seeds[k][0]);
    char *p = below(3) ? NULL : mutate(seeds[k][1]);
    safeplan_error *err = NULL;
    safeplan_task *t = NULL;
    if (d || p) {
      t = safeplan_task_new(d ? d : seeds[k][0], p ? p : seeds[k][1], &err);
      calls++;
      if (!t) check_error(err, "safeplan_task_new");
    }
    const safeplan_task *use = t ? t : (below(30) ? good[k] : NULL);
    char *plan = mutate(seeds[k][2]);
    input = plan;
    err = NULL;
    consume(safeplan_task_validate(use, plan, &err), &err, "safeplan_task_validate");
    err = NULL;
    consume(safeplan_task_validate_reply(use, plan, &err), &err, "safeplan_task_validate_reply");
    free(plan);
    input = NULL;
    /* A monitor of each kind, fed a few mutated actions at fuzzed times. */
    err = NULL;
    safeplan_monitor *m = safeplan_monitor_new(use, &err);
    calls++;
    if (!m) check_error(err, "safeplan_monitor_new");
    err = NULL;
    safeplan_timed_monitor *tm = safeplan_timed_monitor_new(use, &err);
    calls++;
    if (!tm) check_error(err, "safeplan_timed_monitor_new");
    for (int i = 0; i < 6; i++) {
      char *a = mutate(actions[below(sizeof actions / sizeof *actions)]);
      input = a;
      err = NULL;
      if (m) consume(below(2) ? safeplan_monitor_check(m, a, &err) : safeplan_monitor_apply(m, a, &err), &err,
                     "safeplan_monitor_check/apply");
      err = NULL;
      if (tm) {
        double when = a_time();
        switch (below(3)) {
          case 0: consume(safeplan_timed_monitor_start(tm, a, when, &err), &err, "safeplan_timed_monitor_start"); break;
          case 1: consume(safeplan_timed_monitor_end(tm, a, when, &err), &err, "safeplan_timed_monitor_end"); break;
          default: consume(safeplan_timed_monitor_happen(tm, a, when, &err), &err, "safeplan_timed_monitor_happen");
        }
      }
      free(a);
      input = NULL;
    }
    /* NULL handles are errors too. */
    err = NULL;
    consume(safeplan_monitor_check(NULL, "(a)", &err), &err, "safeplan_monitor_check(NULL)");
    err = NULL;
    consume(safeplan_timed_monitor_start(NULL, "(a)", 0.0, &err), &err, "safeplan_timed_monitor_start(NULL)");
    safeplan_monitor_free(m);
    safeplan_timed_monitor_free(tm);
    safeplan_task_free(t);
    free(d);
    free(p);
  }
  for (size_t k = 0; k < kinds; k++) {
    safeplan_task_free(good[k]);
    for (int i = 0; i < 3; i++) free(seeds[k][i]);
  }
  printf("fuzz_capi: %ld rounds, %ld calls, %ld broken contracts (%s %s, ABI %d)\n", rounds, calls, broken,
         "safeplan", safeplan_version(), safeplan_abi_version());
  return broken ? 1 : 0;
}
