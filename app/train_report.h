/* train_report.h: what mnist_train prints about a run besides the epoch
 * lines: the header (GPU, network, settings, data) and, with --show-plans,
 * the cuBLASLt plans. */
#ifndef MNIST_EPILOGS_TRAIN_REPORT_H
#define MNIST_EPILOGS_TRAIN_REPORT_H

#include "app/train_options.h"
#include "data/mnist.h"
#include "gpu/gpu_context.h"
#include "train/trainer.h"

/* "data       DIR: file, file, ...; N train, M test[, S steps per
 * epoch]": the last path component of each file read (steps <= 0: none). */
void train_report_data_line(const mnist_dataset *data, const char *dir,
                            int steps);

/* The header: GPU, network (and its padded widths), the run's settings,
 * the files read from `dir`, then the epoch table's column names. */
void train_report_header(const gpu_context *ctx, const train_options *o,
                         const mnist_dataset *data, const char *dir,
                         const trainer *t);

/* What the wrapper built and, when it autotuned, what it kept; in auto
 * mode, each call's fused and unfused times and the choice. */
void train_report_plans(const gpu_context *ctx);

/* An FP8 run (else nothing): one line with what the casts lost (values
 * saturated, flushed to zero, NaN) over the run; per_tensor (--show-plans):
 * each tensor's format, casts, last scale, amax history and counts. Waits
 * for ctx->stream. Returns 0 or -1. */
int train_report_fp8(gpu_context *ctx, const trainer *t, int per_tensor);

#endif
