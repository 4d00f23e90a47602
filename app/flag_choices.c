/* flag_choices.c: see flag_choices.h. */
#include "app/flag_choices.h"

#include <stddef.h>

#include "gpu/gpu_options.h"
#include "layers/mlp_mode.h"
#include "train/tune_cache.h"

const char *const *flag_precision_names(void) {
  static const char *const names[] = {"fp32", "tf32", "bf16",
                                      "fp16", "fp8",  NULL};
  return names;
}

const char *const *flag_mode_names(void) {
  static const char *const names[] = {"fused", "unfused", "auto", NULL};
  return names;
}

const char *const *flag_activation_names(void) {
  static const char *const names[] = {"relu", "gelu", NULL};
  return names;
}

void flag_store_fp8_format(void *target, int index) {
  ((gpu_fp8_recipe *)target)->all_e4m3 = index == 1;
}

void flag_store_fp8_scaling(void *target, int index) {
  ((gpu_fp8_recipe *)target)->current = index == 1;
}

void flag_store_fp8_fast_accum(void *target, int index) {
  ((gpu_fp8_recipe *)target)->fast_accum = index;
}

void flag_store_mode(void *target, int index) {
  static const mlp_mode values[] = {MLP_MODE_FUSED, MLP_MODE_UNFUSED,
                                    MLP_MODE_AUTO};
  *(mlp_mode *)target = values[index];
}

void flag_store_tune_cache(void *target, int index) {
  *(tune_cache_mode *)target = (tune_cache_mode)index;
}
