/* test_checkpoint_util.h: helpers shared by the checkpoint suites on good
 * input (test_checkpoint.c, test_checkpoint_meta.c): random parameter
 * slabs, a fully filled metadata record, save-then-load, and the JSON
 * header of a written file. Each fails the running Check test on error. */
#ifndef MNIST_EPILOGS_TEST_CHECKPOINT_UTIL_H
#define MNIST_EPILOGS_TEST_CHECKPOINT_UTIL_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "checkpoint/mlp_checkpoint.h"
#include "tests/test_util.h"

/* A calloc'd slab for `widths` (its layout in *layout): random real
 * parameters, zero padding. */
float *test_checkpoint_random_slab(mlp_layout *layout, const int *widths,
                                   int depth, test_rng *rng);

/* test_checkpoint_random_slab of a 7-5-3 network, from `seed`. */
float *test_checkpoint_small_slab(mlp_layout *layout, uint64_t seed);

/* Every field of *meta set (a quoted version, the largest seed, the run's
 * settings, mode "auto" and pad_to "16"). */
void test_checkpoint_full_meta(mlp_checkpoint_meta *meta);

/* Saves `slab` with `meta` (NULL: none) to `path`, then loads it into
 * *loaded taking the file's widths. */
void test_checkpoint_save_and_load(mlp_checkpoint *loaded, const char *path,
                                   const mlp_layout *layout, const float *slab,
                                   const mlp_checkpoint_meta *meta);

/* The JSON header of the safetensors file at `path` (length *n: a
 * multiple of 8, within the file); *bytes the whole file. The caller
 * frees both. */
cJSON *test_checkpoint_read_header(const char *path, uint8_t **bytes,
                                   uint64_t *n);

#endif
