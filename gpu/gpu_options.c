/* gpu_options.c: the defaults and names of gpu_options.h. */
#include "gpu/gpu_options.h"

#include <string.h>

gpu_options gpu_options_defaults(void) {
  gpu_options o = {.device = 0,
                   .precision = GPU_PRECISION_FP32,
                   .autotune = GPU_AUTOTUNE_EXACT};
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

const char *const *gpu_autotune_choices(void) {
  static const char *const names[] = {"exact", "fast", "off", NULL};
  return names;
}

gpu_autotune gpu_autotune_choice(int index) {
  static const gpu_autotune modes[] = {GPU_AUTOTUNE_EXACT, GPU_AUTOTUNE_FAST,
                                       GPU_AUTOTUNE_OFF};
  return modes[index];
}

const char *gpu_precision_name(gpu_precision precision) {
  switch (precision) {
  case GPU_PRECISION_FP32: return "fp32";
  case GPU_PRECISION_TF32: return "tf32";
  case GPU_PRECISION_BF16: return "bf16";
  case GPU_PRECISION_FP16: return "fp16";
  case GPU_PRECISION_COUNT: break;
  }
  return "(unknown)";
}

int gpu_precision_parse(const char *name) {
  for (int p = 0; p < GPU_PRECISION_COUNT; p++)
    if (strcmp(name, gpu_precision_name((gpu_precision)p)) == 0) return p;
  return -1;
}

lt_dtype gpu_precision_dtype(gpu_precision precision) {
  return precision == GPU_PRECISION_BF16   ? LT_DTYPE_BF16
         : precision == GPU_PRECISION_FP16 ? LT_DTYPE_F16
                                           : LT_DTYPE_F32;
}
