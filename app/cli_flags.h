/* cli_flags.h: the one strict command-line parser of mnist_train,
 * mnist_bench and mnist_predict. Each program lists its flags in a table;
 * "--flag value" and
 * "--flag=value" both work. Numbers must be whole strings of digits (a
 * leading '-' only where the range allows it): no spaces, no '+', no
 * trailing text, no wrap-around; floats are plain decimals (no '+', hex,
 * nan or inf) range-checked after rounding to float, so a value that underflows
 * to 0 or rounds to the limit is refused. A flag given twice is an error,
 * and so is a space-separated value that starts with "--" (--flag=--x
 * says it is meant). A table entry may ask to be told whether its flag was
 * given (`given`), so no caller scans argv again. A bad command line is
 * reported in two lines (cli_report_bad_flags). Plain C.
 */
#ifndef MNIST_EPILOGS_CLI_FLAGS_H
#define MNIST_EPILOGS_CLI_FLAGS_H

#include <stddef.h>
#include <stdio.h>

typedef enum cli_kind {
  CLI_SWITCH, /* no value: *(int *)target = switch_value */
  CLI_INT,    /* *(int *)target, in [low, high] */
  CLI_U64,    /* *(unsigned long long *)target, any 64-bit value */
  CLI_FLOAT,  /* *(float *)target, in low..high (open ends as flagged) */
  CLI_STRING, /* *(const char **)target = the argument (not copied), non-empty
               */
  CLI_CHOICE, /* one of choices[]; store(target, index) */
  CLI_CUSTOM  /* parse(target, value, err, size) returns 0 or -1 + err */
} cli_kind;

typedef struct cli_flag {
  const char *name; /* without the leading "--" */
  cli_kind kind;
  void *target;
  double low, high;                       /* CLI_INT, CLI_FLOAT */
  int low_open, high_open;                /* CLI_FLOAT: 1 excludes the bound */
  int switch_value;                       /* CLI_SWITCH */
  const char *const *choices;             /* CLI_CHOICE: NULL-terminated */
  void (*store)(void *target, int index); /* CHOICE */
  int (*parse)(void *target, const char *value, char *err,
               size_t size); /* CUSTOM */
  const char *replaced_by;   /* a flag that is gone: refused, naming this */
  int *given;                /* when not NULL: set to 1 if the flag is given
                                (left as it was otherwise) */
} cli_flag;

/* Parses argv[1 .. argc) against flags[0 .. count). Returns 0, or -1 with
 * `err` naming the flag, what was expected and what was found. */
int cli_parse(const cli_flag *flags, int count, int argc, char **argv,
              char *err, size_t err_size);

/* The number parsers the table uses, for custom flags: 0, or -1 when
 * `text` is not entirely a number in range. */
int cli_parse_int(int *out, const char *text, long long low, long long high);
int cli_parse_u64(unsigned long long *out, const char *text);
/* A plain decimal number: an optional '-', digits with at most one point
 * and an exponent; no spaces, no '+', no hex, nan or inf; finite as a
 * double. */
int cli_parse_real(double *out, const char *text);

/* What every program prints for a bad command line: "PROGRAM: ERR" and
 * one line pointing at --help, no usage text (the error stays on screen). */
void cli_report_bad_flags(FILE *out, const char *program, const char *err);

#endif
