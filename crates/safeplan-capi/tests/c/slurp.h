/* The C tests' one file reader: the text of ROOT/REL, malloc'd and NUL-terminated; exits 2
 * when the file cannot be read (a broken checkout, not a test failure). */
#ifndef SAFEPLAN_TEST_SLURP_H
#define SAFEPLAN_TEST_SLURP_H

#include <stdio.h>
#include <stdlib.h>

static char *slurp(const char *root, const char *rel) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    exit(2);
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc((size_t)n + 1);
  size_t got = fread(text, 1, (size_t)n, f);
  text[got] = '\0';
  fclose(f);
  return text;
}

#endif
