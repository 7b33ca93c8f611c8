/* validate.c: validate a plan from C (docs/C.md).
 *
 *   cc validate.c $(pkg-config --cflags --libs safeplan) -o validate
 *   ./validate domain.pddl problem.pddl plan.txt
 *
 * Prints the sentence `safeplan validate` prints; exits 0 when the plan passes (valid, and on
 * a safety task feasible and safe), 1 when it does not, 2 on an error. */
#include <stdio.h>
#include <stdlib.h>

#include "safeplan.h"

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc((size_t)n + 1);
  size_t got = fread(text, 1, (size_t)n, f);
  text[got] = '\0';
  fclose(f);
  return text;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s DOMAIN PROBLEM PLAN\n", argv[0]);
    return 2;
  }
  char *domain = slurp(argv[1]), *problem = slurp(argv[2]), *plan = slurp(argv[3]);
  if (!domain || !problem || !plan) {
    fprintf(stderr, "cannot read the files\n");
    return 2;
  }
  int status = 2;
  safeplan_error *err = NULL;
  safeplan_task *task = safeplan_task_new(domain, problem, &err);
  safeplan_verdict *verdict = task ? safeplan_task_validate(task, plan, &err) : NULL;
  if (verdict) {
    printf("%s: %s\n", argv[3], safeplan_verdict_message(verdict));
    status = safeplan_verdict_valid(verdict) ? 0 : 1;
  } else {
    fprintf(stderr, "error [%s]: %s\n", safeplan_error_code(err), safeplan_error_message(err));
  }
  safeplan_verdict_free(verdict);
  safeplan_task_free(task);
  safeplan_error_free(err);
  free(domain);
  free(problem);
  free(plan);
  return status;
}
