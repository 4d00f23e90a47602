/* tune_report_text.h: the step tuner's report as --show-plans prints it
 * (train/step_tune_print.c), read back by the tests: each slot's choice and
 * each comparison's margin over the line the rule draws, and whether two
 * processes' choices differ only where the rule's answer depends on the
 * process's noise. Checked against step_tune_print's own output
 * (tests/test_tune_report_text.c). */
#ifndef MNIST_EPILOGS_TUNE_REPORT_TEXT_H
#define MNIST_EPILOGS_TUNE_REPORT_TEXT_H

#include <stddef.h>

#include "train/tune_search.h"

typedef struct tune_report_text {
  char fingerprint[9];
  int budget_spent;    /* "spent: what was not visited keeps ..." */
  int whole_steps;     /* "the whole step" comparisons (--mode auto) */
  int checked;         /* 1: an "a fresh context" row (the chosen set
                          checked in a fresh context, step_tune.h) */
  double check_margin; /* its margin, as a verdict's below: the smaller
                          of tune_rule_check's two */
  int slots, verdicts;
  char slot[TUNE_MAX_SLOTS][96];  /* "weights 2 algo": the call, its slot */
  char value[TUNE_MAX_SLOTS][32]; /* "#2", "unfused" */
  struct {
    char slot[96];
    char from[32], to[32];
    double margin; /* gain / the rule's line (tune_rule.h): above 1 won */
  } verdict[TUNE_MAX_RECORDS];
} tune_report_text;

/* Reads the report that starts at "step tuner: fingerprint" in `text`.
 * Returns 0, or -1 when there is none. */
int tune_report_text_read(tune_report_text *r, const char *text);

/* 0 when a and b choose alike in every slot, or differ only where one of
 * them decided near the rule's line (a comparison in the slot with either
 * value on a side and a margin from 1/2 to 2; where one value is #0, also
 * the check in a fresh context, which keeps the chosen set or takes every
 * algorithm back to #0 at once) or ran out of budget before trying the other's
 * value; else 1, with the first such slot said in why. Reports with whole-step
 * comparisons (--mode auto, where one decision moves many slots) are not judged
 * slot by slot: -1. */
int tune_report_text_differ(const tune_report_text *a,
                            const tune_report_text *b, char *why, size_t size);

/* 1 when auto's report `a` makes the step that report `m` of --mode
 * unfused (unfused = 1: its "twin" slots) or fused (0: its "algo" slots)
 * made: every way of `a` that mode, and for each call of `m` the same
 * choice, in the mode's field where `a` gives the call a way, else in its
 * algo slot (a DEFAULT call: one GEMM in every mode, train/step_slots.c);
 * else 0. Two rows of mnist_bench that make one step differ in time by
 * their rows' placement alone. */
int tune_report_text_same_step(const tune_report_text *a,
                               const tune_report_text *m, int unfused);

#endif
