/* idx_error.c: filling the loaders' error record (idx_error.h). */
#include "data/idx_error.h"

#include <stdarg.h>
#include <stdio.h>

enum idx_status idx_fail(idx_error *err, enum idx_status status,
                         const char *format, ...) {
  if (err) {
    va_list args;
    va_start(args, format);
    vsnprintf(err->message, sizeof err->message, format, args);
    va_end(args);
    err->status = status;
  }
  return status;
}
