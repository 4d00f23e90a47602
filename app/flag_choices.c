/* flag_choices.c: see flag_choices.h. */
#include "app/flag_choices.h"

#include <stddef.h>

#include "layers/mlp_mode.h"

const char *const *flag_precision_names(void) {
  static const char *const names[] = {"fp32", "tf32", "bf16", "fp16", NULL};
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

void flag_store_mode(void *target, int index) {
  static const mlp_mode values[] = {MLP_MODE_FUSED, MLP_MODE_UNFUSED,
                                    MLP_MODE_AUTO};
  *(mlp_mode *)target = values[index];
}
