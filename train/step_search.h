/* step_search.h: the step tuner's search (train/step_tune.h): the slots
 * built and checked, the step timed (step_time.h) through the phases of
 * tune_search.h (under --mode auto: the tuned whole steps, the ways
 * alone, tune_auto_start, each call's way, and after a near tie each
 * call's way from the other step too; with a rule all that after the
 * search --autotune off runs, its end weighed against off's set), the
 * network's state kept and put back. Internal to the step tuner. */
#ifndef MNIST_EPILOGS_STEP_SEARCH_H
#define MNIST_EPILOGS_STEP_SEARCH_H

#include "train/step_tune.h"

/* Builds r's slots for r's calls and chooses r->chosen by timing the step (the
 * budget o->budget_ms, or STEP_TUNE_BUDGET_MS), r->log the evidence; under auto
 * r->start, r->start_fused, r->defended_from and r->narrow too. The network's
 * state is taken before the first step and put back after the last
 * (step_time_kept). Returns 0 or -1. */
int step_search_tune(step_tune_report *r, const step_tune_target *t,
                     const step_tune_options *o);

/* The bound of tune_auto_start's narrow win and of tune_steps_tied's tie:
 * TUNE_AUTO_NARROW, or the fraction in $MNIST_TUNE_AUTO_NARROW (0 to 1;
 * tests/test_step_tune.c sets 0.5 to see the check defend every call fused
 * at the default network, whose unfused wins by about 4 %, and the way
 * search then runs from both steps); a value that is not such a fraction
 * is named on stderr and the default used. */
double step_tune_narrow(void);

#endif
