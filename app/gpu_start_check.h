/* gpu_start_check.h: what mnist_train and mnist_predict check of the GPU
 * before they train or predict: that a CUDA device is usable
 * (gpu_device_available), then that the capability table and cuBLASLt
 * itself take the run's precision and epilogues
 * (lt_precision_check_device: cuBLASLt is asked to plan each).
 * mnist_train runs it on the start-up thread while the data is read
 * (gpu/gpu_warm.h: gpu_start_check_job), and on its own thread when that
 * thread did not run it. On the H200 the check
 * took 0.1-0.16 s of the default run's wall clock when it ran after the
 * data (its first cuBLASLt calls; session 8, docs/performance.md). */
#ifndef MNIST_EPILOGS_GPU_START_CHECK_H
#define MNIST_EPILOGS_GPU_START_CHECK_H

#include "gpu/gpu_options.h"
#include "lt/lt_probe.h"

typedef struct gpu_start_check {
  int device;                /* the device checked */
  gpu_precision precision;   /* the run's precision */
  lt_epilogue_set epilogues; /* the epilogues it calls (lt_run_epilogues) */
  int available;             /* 1: a usable CUDA device exists */
  int verdict;   /* when available: lt_precision_check_device's answer, 0
                    fine, 1 runs without tensor cores, -1 refused */
  char why[512]; /* why no device; else the note (1) or the refusal (-1),
                    "" when fine */
} gpu_start_check;

/* What to check; nothing is checked yet. */
void gpu_start_check_init(gpu_start_check *check, int device,
                          gpu_precision precision, lt_epilogue_set epilogues);

/* Checks, filling available, verdict and why. */
void gpu_start_check_run(gpu_start_check *check);

/* gpu_start_check_run as a gpu_warm_job (`check` a gpu_start_check). */
void gpu_start_check_job(void *check);

#endif
