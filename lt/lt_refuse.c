/* lt_refuse.c: the wrapper's error record (lt_refuse.h, lt_last_error). */
#include "lt/lt_refuse.h"

#include <stdarg.h>
#include <stdio.h>

#include "lt/lt_matmul.h"

int lt_refuse(gpu_context *ctx, const lt_shape *shape, const char *format,
              ...) {
  char reason[300], what[128];
  va_list args;
  va_start(args, format);
  vsnprintf(reason, sizeof reason, format, args);
  va_end(args);
  lt_shape_describe(what, sizeof what, shape);
  snprintf(ctx->last_error, sizeof ctx->last_error, "lt_matmul %s: %s", what,
           reason);
  fprintf(stderr, "%s\n", ctx->last_error);
  return -1;
}

const char *lt_last_error(const gpu_context *ctx) {
  return ctx->last_error;
}
