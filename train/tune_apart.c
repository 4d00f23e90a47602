/* tune_apart.c: the step tuner's copy of a run in a context of its own
 * (tune_apart.h). */
#include "train/tune_apart.h"

#include <stdio.h>
#include <stdlib.h>

#include "train/step_time.h"

int tune_apart_run(gpu_context *primary, const mnist_dataset *source, int batch,
                   tune_apart_copy copy, void *arg, step_tune_report *report) {
  mnist_dataset *part = malloc(sizeof *part);
  if (!part) {
    fprintf(stderr, "tune_apart: out of host memory\n");
    return -1;
  }
  *part = *source;
  if (part->train.count > STEP_TIME_STEPS * batch)
    part->train.count = STEP_TIME_STEPS * batch;
  if (part->test.count > batch) part->test.count = batch;
  gpu_context *ctx = NULL;
  char why[300];
  int status = -1;
  if (gpu_context_create_apart(&ctx, &primary->options, why, sizeof why) != 0)
    fprintf(stderr,
            "tune_apart: note: no CUDA context apart for the step tuner: %s\n",
            why);
  else
    status = copy(arg, ctx, part, report);
  if (ctx) {
    gpu_context_leave(ctx);
    gpu_context_retire(primary, ctx);
  }
  (void)cudaGetLastError(); /* tune_apart.h says why */
  free(part);
  return status;
}

int tune_apart_accept(const step_tune_report *apart, int call_count, char *why,
                      size_t why_size) {
  if (!apart->has_entry || apart->slot_count <= 0) {
    snprintf(why, why_size, "its tuning failed (see above)");
    return -1;
  }
  if (apart->call_count != call_count) {
    snprintf(why, why_size, "it tuned %d calls, this step has %d",
             apart->call_count, call_count);
    return -1;
  }
  if (apart->slot_count > TUNE_MAX_SLOTS) {
    snprintf(why, why_size, "it has %d choices, at most %d fit",
             apart->slot_count, (int)TUNE_MAX_SLOTS);
    return -1;
  }
  return 0;
}
