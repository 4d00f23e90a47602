/* gpu_options.c: the defaults and names of gpu_options.h. */
#include "gpu_options.h"

gpu_options gpu_options_defaults(void) {
  gpu_options o = {.device = 0, .tf32 = 0, .autotune = GPU_AUTOTUNE_EXACT};
  return o;
}

const char *gpu_autotune_name(gpu_autotune autotune) {
  switch (autotune) {
  case GPU_AUTOTUNE_OFF: return "off";
  case GPU_AUTOTUNE_EXACT: return "exact";
  case GPU_AUTOTUNE_FAST: return "fast";
  }
  return "(unknown)";
}
