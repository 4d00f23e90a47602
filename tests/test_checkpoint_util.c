/* test_checkpoint_util.c: see test_checkpoint_util.h. */
#include "tests/test_checkpoint_util.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "lt/lt_shape.h"

float *test_checkpoint_random_slab(mlp_layout *layout, const int *widths,
                                   int depth, test_rng *rng) {
  char why[256];
  ck_assert_msg(mlp_layout_init(layout, widths, depth, why, sizeof why) == 0,
                "%s", why);
  float *slab = calloc(layout->slab_floats, sizeof *slab);
  ck_assert_ptr_nonnull(slab);
  for (int l = 0; l < depth; l++) {
    int in = widths[l], out = widths[l + 1];
    for (int o = 0; o < out; o++) {
      for (int i = 0; i < in; i++)
        slab[layout->w_offset[l] + (size_t)o * lt_ld(in) + i] =
            (float)test_rng_uniform(rng, -1, 1);
      slab[layout->b_offset[l] + o] = (float)test_rng_uniform(rng, -1, 1);
    }
  }
  return slab;
}

float *test_checkpoint_small_slab(mlp_layout *layout, uint64_t seed) {
  test_rng rng;
  test_rng_init(&rng, seed);
  const int widths[3] = {7, 5, 3};
  return test_checkpoint_random_slab(layout, widths, 2, &rng);
}

void test_checkpoint_full_meta(mlp_checkpoint_meta *meta) {
  mlp_checkpoint_meta_init(meta);
  snprintf(meta->activation, sizeof meta->activation, "gelu");
  snprintf(meta->precision, sizeof meta->precision, "bf16");
  snprintf(meta->version, sizeof meta->version, "test \"quoted\" 1.0");
  meta->epochs = 5;
  meta->schedule_epochs = 5;
  meta->batch = 128;
  meta->seed = 18446744073709551615ull;
  meta->has_seed = 1;
  meta->test_accuracy = 98.32;
  /* The run's settings scripts/replay_step_pytorch.py reads. */
  snprintf(meta->lr, sizeof meta->lr, "0.0500000007");
  snprintf(meta->momentum, sizeof meta->momentum, "0.899999976");
  snprintf(meta->schedule, sizeof meta->schedule, "cosine");
  snprintf(meta->order, sizeof meta->order, "file");
  snprintf(meta->steps, sizeof meta->steps, "3");
  snprintf(meta->pixel_scale, sizeof meta->pixel_scale, "0.0127407");
  snprintf(meta->pixel_shift, sizeof meta->pixel_shift, "-0.424212");
  /* How the run computed (read back, printed by mnist_predict). */
  snprintf(meta->mode, sizeof meta->mode, "auto");
  snprintf(meta->pad_to, sizeof meta->pad_to, "16");
  snprintf(meta->fp8_format, sizeof meta->fp8_format, "hybrid");
  snprintf(meta->fp8_scaling, sizeof meta->fp8_scaling, "delayed");
  snprintf(meta->fp8_fast_accum, sizeof meta->fp8_fast_accum, "none");
}

void test_checkpoint_save_and_load(mlp_checkpoint *loaded, const char *path,
                                   const mlp_layout *layout, const float *slab,
                                   const mlp_checkpoint_meta *meta) {
  char err[1024];
  ck_assert_msg(
      mlp_checkpoint_save(path, layout, slab, meta, err, sizeof err) == 0, "%s",
      err);
  ck_assert_msg(mlp_checkpoint_load(path, NULL, 0, loaded, err, sizeof err) ==
                    0,
                "%s", err);
}

/* Reads the whole file at `path` into a malloc'd buffer. */
static uint8_t *read_all(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  fseek(f, 0, SEEK_END);
  *size = (size_t)ftell(f);
  rewind(f);
  uint8_t *bytes = malloc(*size + 1);
  ck_assert_ptr_nonnull(bytes);
  ck_assert_uint_eq(fread(bytes, 1, *size, f), *size);
  fclose(f);
  return bytes;
}

cJSON *test_checkpoint_read_header(const char *path, uint8_t **bytes,
                                   uint64_t *n) {
  size_t size;
  *bytes = read_all(path, &size);
  *n = 0;
  for (int b = 7; b >= 0; b--)
    *n = *n << 8 | (*bytes)[b];
  ck_assert_uint_eq(*n % 8, 0);
  ck_assert_uint_le(8 + *n, size);
  cJSON *root = cJSON_ParseWithLength((const char *)*bytes + 8, (size_t)*n);
  ck_assert_ptr_nonnull(root);
  return root;
}
