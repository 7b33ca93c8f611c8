/* The C API from C, as a robot stack calls it: compiled with -Wall -Wextra -Werror and run
 * under AddressSanitizer and UndefinedBehaviorSanitizer (and valgrind) by .ci/capi.sh.
 * Expectations are the CLI's documented verdicts on the built-in tasks (README.md: hot-soup's
 * unsafe.plan is feasible and unsafe at step 2) and hand-written cases.
 *
 * Usage: test_capi REPO_ROOT. Prints "N passed, M failed"; exit 1 on any failure. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "safeplan.h"
#include "slurp.h"

static int passed = 0, failed = 0;

#define CHECK(cond)                                                       \
  do {                                                                    \
    if (cond) {                                                           \
      passed++;                                                           \
    } else {                                                              \
      failed++;                                                           \
      fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                     \
  } while (0)

struct shared {
  const safeplan_task *task;
  const char *safe_plan;
  const char *unsafe_plan;
  int wrong;
};

static void *validate_many(void *arg) {
  struct shared *s = arg;
  for (int i = 0; i < 200; i++) {
    int want = i % 2 == 0;
    safeplan_verdict *v =
        safeplan_task_validate(s->task, want ? s->safe_plan : s->unsafe_plan, NULL);
    if (!v || safeplan_verdict_valid(v) != want) s->wrong++;
    safeplan_verdict_free(v);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s REPO_ROOT\n", argv[0]);
    return 2;
  }
  const char *root = argv[1];
  CHECK(strcmp(safeplan_version(), "0.1.0") == 0);

  char *domain = slurp(root, "examples/tasks/hot-soup/domain.pddl");
  char *problem = slurp(root, "examples/tasks/hot-soup/problem.pddl");
  char *safe_plan = slurp(root, "examples/tasks/hot-soup/safe.plan");
  char *unsafe_plan = slurp(root, "examples/tasks/hot-soup/unsafe.plan");

  safeplan_error *err = NULL;
  safeplan_task *task = safeplan_task_new(domain, problem, &err);
  CHECK(task != NULL && err == NULL);

  /* A valid and safe plan. */
  safeplan_verdict *v = safeplan_task_validate(task, safe_plan, &err);
  CHECK(v && safeplan_verdict_valid(v) && safeplan_verdict_feasible(v) && safeplan_verdict_safe(v));
  CHECK(safeplan_verdict_failed_step(v) == -1);
  safeplan_verdict_free(v);

  /* Feasible but unsafe at step 2, and why. */
  v = safeplan_task_validate(task, unsafe_plan, &err);
  CHECK(v && !safeplan_verdict_valid(v) && safeplan_verdict_feasible(v) && !safeplan_verdict_safe(v));
  CHECK(safeplan_verdict_failed_step(v) == 2);
  CHECK(strstr(safeplan_verdict_message(v), "step 2 (move stove table) raised danger 0 -> 1 because") != NULL);
  CHECK(strstr(safeplan_verdict_json(v), "\"danger_events\"") != NULL);
  safeplan_verdict_free(v);

  /* An infeasible plan: the soup is not picked up. */
  v = safeplan_task_validate(task, "(move stove table)\n(put-down soup table)", &err);
  CHECK(v && !safeplan_verdict_valid(v) && !safeplan_verdict_feasible(v));
  safeplan_verdict_free(v);

  /* An LLM reply, read as written. */
  v = safeplan_task_validate_reply(task, "Plan:\n1. (pick-up soup stove)\n2. (teleport soup)", &err);
  CHECK(v && !safeplan_verdict_valid(v) && strstr(safeplan_verdict_json(v), "(teleport soup)") != NULL);
  safeplan_verdict_free(v);

  /* Errors with codes and places. */
  safeplan_task *bad = safeplan_task_new(
      "(define (domain d) (:predicates (p)) (:action a :effect (q)))",
      "(define (problem x) (:domain d) (:init) (:goal (p)))", &err);
  CHECK(bad == NULL && err != NULL);
  CHECK(strcmp(safeplan_error_code(err), "undefined-predicate") == 0);
  CHECK(strncmp(safeplan_error_message(err), "domain.pddl:1:", 14) == 0);
  safeplan_error_free(err);
  err = NULL;

  v = safeplan_task_validate(task, "(pick-up soup", &err);
  CHECK(v == NULL && err != NULL && strncmp(safeplan_error_message(err), "plan:", 5) == 0);
  safeplan_error_free(err);
  err = NULL;

  /* NULL arguments and non-UTF-8 text are errors, never crashes. */
  CHECK(safeplan_task_new(NULL, problem, &err) == NULL);
  CHECK(err && strcmp(safeplan_error_code(err), "null-argument") == 0);
  safeplan_error_free(err);
  err = NULL;
  CHECK(safeplan_task_validate(NULL, safe_plan, &err) == NULL);
  safeplan_error_free(err);
  err = NULL;
  CHECK(safeplan_task_validate(task, NULL, NULL) == NULL); /* no error slot: just NULL */
  CHECK(safeplan_task_validate(task, "(pick-up \xe9)", &err) == NULL);
  CHECK(err && strcmp(safeplan_error_code(err), "invalid-utf8") == 0);
  safeplan_error_free(err);
  err = NULL;
  CHECK(!safeplan_verdict_valid(NULL) && safeplan_verdict_failed_step(NULL) == -1);
  CHECK(safeplan_verdict_message(NULL) == NULL && safeplan_error_code(NULL) == NULL);
  safeplan_task_free(NULL);
  safeplan_verdict_free(NULL);
  safeplan_monitor_free(NULL);
  safeplan_timed_monitor_free(NULL);
  safeplan_error_free(NULL);

  /* A monitor refuses the dangerous step and says why; the state does not change. */
  safeplan_monitor *m = safeplan_monitor_new(task, &err);
  CHECK(m != NULL);
  v = safeplan_monitor_apply(m, "(pick-up soup stove)", &err);
  CHECK(v && safeplan_verdict_valid(v));
  safeplan_verdict_free(v);
  v = safeplan_monitor_check(m, "(move stove table)", &err);
  CHECK(v && !safeplan_verdict_valid(v) && safeplan_verdict_feasible(v) && !safeplan_verdict_safe(v));
  CHECK(strstr(safeplan_verdict_message(v), "would raise danger 0 -> 1 because") != NULL);
  safeplan_verdict_free(v);
  v = safeplan_monitor_apply(m, "(put-down soup stove)", &err);
  CHECK(v && safeplan_verdict_valid(v));
  safeplan_verdict_free(v);
  v = safeplan_monitor_check(m, "(put-down soup stove)", &err);
  CHECK(v && !safeplan_verdict_valid(v) && !safeplan_verdict_feasible(v)); /* not held */
  safeplan_verdict_free(v);
  safeplan_monitor_free(m);

  /* Validation from several threads on one shared task. */
  struct shared s = {task, safe_plan, unsafe_plan, 0};
  pthread_t threads[4];
  for (int i = 0; i < 4; i++) pthread_create(&threads[i], NULL, validate_many, &s);
  for (int i = 0; i < 4; i++) pthread_join(threads[i], NULL);
  CHECK(s.wrong == 0);

  safeplan_task_free(task);
  free(domain);
  free(problem);
  free(safe_plan);
  free(unsafe_plan);
  printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
