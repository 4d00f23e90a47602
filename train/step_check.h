/* step_check.h: the check in a fresh context (train/step_tune.h, "Where")
 * of the set the step tuner chose in its context apart, against the set
 * it defends (what an untuned run runs; under --mode auto the start,
 * tune_defended): the caller's side, which hands the two sets to a copy
 * of the run (step_tune_options.tune_apart), and the copy's side, which
 * times them (tune_rule_check). Internal to the step tuner. */
#ifndef MNIST_EPILOGS_STEP_CHECK_H
#define MNIST_EPILOGS_STEP_CHECK_H

#include "train/step_tune.h"

/* The caller's side: when r->chosen differs from the defended set, a copy
 * in a fresh context weighs them; r->chosen becomes the set it keeps, and
 * its comparison joins r->log (as its last record, over the search's last
 * when the log is full); `key` names the entries it is handed. Returns 0,
 * or 1 when the check could not run: r->chosen is then the defended set,
 * said on stderr, and must not be cached. */
int step_check_apart(step_tune_report *r, const step_tune_target *t,
                     const step_tune_options *o, const char *key);

/* The copy's side (step_tune_options.check set): the sets the entries
 * name, taken as they are stored (no list asked for), checked here, the
 * winner written into the layers and r->chosen (no entry: has_entry 0,
 * the caller reads the check's record). Returns 0 or -1. */
int step_check_run(step_tune_report *r, const step_tune_target *t,
                   const step_tune_options *o);

#endif
