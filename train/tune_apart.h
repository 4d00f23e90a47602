/* tune_apart.h: the step tuner's copy of a run in a CUDA context of its
 * own (train/step_tune.h, step_tune_options.tune_apart): the context and
 * the data the copy needs, around the caller's set-up of the copy; and
 * whether what the copy chose can be taken. The copy's context is
 * destroyed with every kernel it loaded, so the run's own context loads
 * only the kernels its step runs (gpu/gpu_apart.h says what the others
 * cost). */
#ifndef MNIST_EPILOGS_TUNE_APART_H
#define MNIST_EPILOGS_TUNE_APART_H

#include <stddef.h>

#include "data/mnist.h"
#include "gpu/gpu_context.h"
#include "train/step_tune.h"

/* Sets up the copy in `ctx` on `part`, tunes it (its report, with the
 * chosen set's entry, into *report), destroys it. Returns 0 or -1. */
typedef int (*tune_apart_copy)(void *arg, gpu_context *ctx,
                               const mnist_dataset *part,
                               step_tune_report *report);

/* A context apart with the options of `primary` (the run's context,
 * whose buffers are in place: gpu_context_retire says why), the data the
 * copy needs (the first STEP_TIME_STEPS full batches of
 * `source`'s training split, which the tuner replays, and one test batch,
 * for the warm-up's evaluation: not the whole set on the GPU again),
 * copy(arg, ...) in it, then the context left, handed to
 * gpu_context_retire(primary, ...) (destroyed while the caller goes on;
 * gpu_context_settle(primary) waits for it), and the runtime's last error
 * cleared (it is the thread's, not the context's: one the copy left is
 * reported already and must not fail the caller's next check). Returns
 * copy's status, or -1 (said on stderr). */
int tune_apart_run(gpu_context *primary, const mnist_dataset *source, int batch,
                   tune_apart_copy copy, void *arg, step_tune_report *report);

/* Whether the copy's choices can be taken for a step of `call_count`
 * calls: its entry written (has_entry: the copy's tuning did not fail),
 * with choices, for as many calls, and no more choices than a report
 * holds. Returns 0, or -1 with why[] saying why. */
int tune_apart_accept(const step_tune_report *apart, int call_count, char *why,
                      size_t why_size);

#endif
