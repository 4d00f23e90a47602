/* cli_flags.c: the strict flag parser (cli_flags.h). */
#include "app/cli_flags.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CLI_MAX_FLAGS = 64 };

int cli_parse_int(int *out, const char *text, long long low, long long high) {
  const char *digits = text && *text == '-' && low < 0 ? text + 1 : text;
  if (!digits || !isdigit((unsigned char)*digits)) return -1;
  char *end = NULL;
  errno = 0;
  long long value = strtoll(text, &end, 10);
  if (errno != 0 || *end != '\0' || value < low || value > high) return -1;
  *out = (int)value;
  return 0;
}

int cli_parse_u64(unsigned long long *out, const char *text) {
  if (!text || !isdigit((unsigned char)*text)) return -1;
  char *end = NULL;
  errno = 0;
  unsigned long long value = strtoull(text, &end, 10);
  if (errno != 0 || *end != '\0') return -1;
  *out = value;
  return 0;
}

int cli_parse_real(double *out, const char *text) {
  if (!text || !*text) return -1;
  if (strspn(text, "0123456789.eE+-") != strlen(text)) return -1;
  const char *digits = text[0] == '-' ? text + 1 : text;
  if (!isdigit((unsigned char)*digits) && *digits != '.') return -1;
  char *end = NULL;
  errno = 0;
  double value = strtod(text, &end);
  if (*end != '\0' || errno == ERANGE || !isfinite(value)) return -1;
  *out = value;
  return 0;
}

/* The range a float flag accepts, checked on the value rounded to float:
 * a plain decimal number (cli_parse_real), finite, normal or exactly zero
 * without having underflowed to it, inside the bounds. */
static int parse_float(float *out, const char *text, const cli_flag *f) {
  double wide = 0.0;
  if (cli_parse_real(&wide, text) != 0) return -1;
  float value = (float)wide;
  if (!isfinite(value)) return -1;
  if (value != 0.0f && !isnormal(value)) return -1;
  if (value == 0.0f && wide != 0.0) return -1; /* underflowed to zero */
  if (f->low_open ? !(value > f->low) : !(value >= f->low)) return -1;
  if (f->high_open ? !(value < f->high) : !(value <= f->high)) return -1;
  *out = value;
  return 0;
}

/* "a number > 0 and <= 100", "a whole number from 1 to 5", "'a' or 'b'". */
static void describe(char *out, size_t size, const cli_flag *f) {
  size_t at = 0;
  switch (f->kind) {
  case CLI_INT:
    snprintf(out, size, "a whole number from %.0f to %.0f", f->low, f->high);
    break;
  case CLI_U64:
    snprintf(out, size, "a whole number from 0 to 18446744073709551615");
    break;
  case CLI_FLOAT:
    snprintf(out, size, "a number %s %g and %s %g",
             f->low_open ? ">" : ">=", f->low,
             f->high_open ? "<" : "<=", f->high);
    break;
  case CLI_CHOICE:
    out[0] = '\0';
    for (int i = 0; f->choices[i] && at < size; i++)
      at += (size_t)snprintf(out + at, size - at, "%s'%s'",
                             i == 0              ? ""
                             : f->choices[i + 1] ? ", "
                                                 : " or ",
                             f->choices[i]);
    break;
  default: snprintf(out, size, "a non-empty value"); break;
  }
}

static int set_value(const cli_flag *f, const char *value, char *err,
                     size_t err_size) {
  int ok = -1;
  switch (f->kind) {
  case CLI_INT:
    ok = cli_parse_int((int *)f->target, value, (long long)f->low,
                       (long long)f->high);
    break;
  case CLI_U64:
    ok = cli_parse_u64((unsigned long long *)f->target, value);
    break;
  case CLI_FLOAT: ok = parse_float((float *)f->target, value, f); break;
  case CLI_STRING:
    if (*value) *(const char **)f->target = value, ok = 0;
    break;
  case CLI_CHOICE:
    for (int i = 0; f->choices[i]; i++)
      if (strcmp(value, f->choices[i]) == 0) {
        f->store(f->target, i);
        ok = 0;
      }
    break;
  case CLI_CUSTOM: return f->parse(f->target, value, err, err_size);
  case CLI_SWITCH: break;
  }
  if (ok == 0) return 0;
  char expected[160];
  describe(expected, sizeof expected, f);
  snprintf(err, err_size, "--%s: expected %s, found '%s'", f->name, expected,
           value);
  return -1;
}

static const cli_flag *find(const cli_flag *flags, int count,
                            const char *name) {
  for (int i = 0; i < count; i++)
    if (strcmp(flags[i].name, name) == 0) return &flags[i];
  return NULL;
}

int cli_parse(const cli_flag *flags, int count, int argc, char **argv,
              char *err, size_t err_size) {
  int seen[CLI_MAX_FLAGS] = {0};
  if (count > CLI_MAX_FLAGS) {
    snprintf(err, err_size,
             "cli_parse: expected at most %d flags in a table, found %d",
             CLI_MAX_FLAGS, count);
    return -1;
  }
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (strncmp(arg, "--", 2) != 0) {
      snprintf(err, err_size, "expected a flag starting with --, found '%s'",
               arg);
      return -1;
    }
    char name[64];
    const char *eq = strchr(arg + 2, '=');
    size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
    const cli_flag *f = NULL;
    if (len > 0 && len < sizeof name) {
      memcpy(name, arg + 2, len);
      name[len] = '\0';
      f = find(flags, count, name);
    }
    if (!f) {
      snprintf(err, err_size, "unknown flag '%s'", arg);
      return -1;
    }
    if (f->replaced_by) {
      snprintf(err, err_size, "flag '--%s' is gone: use %s", f->name,
               f->replaced_by);
      return -1;
    }
    if (seen[f - flags]++) {
      snprintf(err, err_size,
               "--%s given twice: expected each flag at most once", f->name);
      return -1;
    }
    if (f->given) *f->given = 1;
    if (f->kind == CLI_SWITCH) {
      if (eq) {
        snprintf(err, err_size, "flag '--%s' takes no value, found '%s'",
                 f->name, arg);
        return -1;
      }
      *(int *)f->target = f->switch_value;
      continue;
    }
    const char *value = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
    if (!value) {
      snprintf(err, err_size, "--%s: expected a value, found none", f->name);
      return -1;
    }
    if (!eq && strncmp(value, "--", 2) == 0) {
      snprintf(err, err_size,
               "--%s: expected a value, found the flag '%s' (write "
               "--%s=%s if that is the value)",
               f->name, value, f->name, value);
      return -1;
    }
    if (set_value(f, value, err, err_size) != 0) return -1;
  }
  return 0;
}

void cli_report_bad_flags(FILE *out, const char *program, const char *err) {
  fprintf(out, "%s: %s\n%s: '%s --help' lists the flags\n", program, err,
          program, program);
}
