/* lt_refuse.h: how the wrapper's files (lt_matmul.c, lt_autotune.c,
 * lt_auto.c, lt_unfused.c) record a refusal: in ctx->last_error, which
 * lt_last_error (lt_matmul.h) returns, and on stderr. Not for callers of
 * the wrapper. */
#ifndef MNIST_EPILOGS_LT_REFUSE_H
#define MNIST_EPILOGS_LT_REFUSE_H

#include "gpu/gpu_context.h"
#include "lt/lt_shape.h"

/* Records "lt_matmul <shape>: <reason>" in ctx->last_error and on stderr;
 * returns -1. */
int lt_refuse(gpu_context *ctx, const lt_shape *shape, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

#endif
