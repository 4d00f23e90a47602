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

static void store_fp8_format(void *target, int index) {
  ((fp8_recipe *)target)->all_e4m3 = index == 1;
}

static void store_fp8_scaling(void *target, int index) {
  ((fp8_recipe *)target)->current = index == 1;
}

static void store_fp8_fast_accum(void *target, int index) {
  ((fp8_recipe *)target)->fast_accum = (fp8_fast_accum)index;
}

cli_flag flag_fp8(fp8_recipe_field field, fp8_recipe *recipe, int *given) {
  static const char *const names[] = {"fp8-format", "fp8-scaling",
                                      "fp8-fast-accum"};
  static void (*const stores[])(void *, int) = {
      store_fp8_format, store_fp8_scaling, store_fp8_fast_accum};
  cli_flag f = {.name = names[field],
                .kind = CLI_CHOICE,
                .target = recipe,
                .choices = fp8_recipe_choices(field),
                .store = stores[field],
                .given = given};
  return f;
}

void flag_store_mode(void *target, int index) {
  static const mlp_mode values[] = {MLP_MODE_FUSED, MLP_MODE_UNFUSED,
                                    MLP_MODE_AUTO};
  *(mlp_mode *)target = values[index];
}

void flag_store_tune_cache(void *target, int index) {
  *(tune_cache_mode *)target = (tune_cache_mode)index;
}
