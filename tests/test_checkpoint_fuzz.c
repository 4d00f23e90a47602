/* test_checkpoint_fuzz.c: the checkpoint loader on randomly damaged files.
 * A valid small checkpoint gets a few thousand seeded mutations (bytes
 * flipped in the header length, the header and the data; cuts at random
 * lengths; random bytes inserted); on each the loader must not crash
 * (this suite runs under ASan and UBSan too) and must either fail with a
 * message naming the file or succeed with a consistent layout and finite
 * values. TEST_SEED replays a run. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint/mlp_checkpoint.h"
#include "lt/lt_shape.h"
#include "tests/test_util.h"

#define MUTATIONS 3000

static char dir[4096];
static uint64_t seed;

static void setup(void) {
  ck_assert_int_eq(test_make_temp_dir(dir, sizeof dir), 0);
}
static void teardown(void) {
  test_remove_dir(dir);
}

/* Writes a valid 5-3-2 checkpoint with metadata to `path` and returns its
 * bytes (malloc'd) and size. */
static uint8_t *valid_file(const char *path, size_t *size) {
  int widths[3] = {5, 3, 2};
  mlp_layout layout;
  char err[1024];
  ck_assert_int_eq(mlp_layout_init(&layout, widths, 2, err, sizeof err), 0);
  float *slab = calloc(layout.slab_floats, sizeof *slab);
  ck_assert_ptr_nonnull(slab);
  for (int l = 0; l < 2; l++) {
    for (int o = 0; o < widths[l + 1]; o++) {
      for (int i = 0; i < widths[l]; i++)
        slab[layout.w_offset[l] + (size_t)o * lt_ld(widths[l]) + i] =
            0.25f * (float)(o - i);
      slab[layout.b_offset[l] + o] = 0.5f + (float)o;
    }
  }
  mlp_checkpoint_meta meta;
  mlp_checkpoint_meta_init(&meta);
  snprintf(meta.activation, sizeof meta.activation, "relu");
  meta.epochs = 3;
  meta.test_accuracy = 97.5;
  ck_assert_msg(
      mlp_checkpoint_save(path, &layout, slab, &meta, err, sizeof err) == 0,
      "%s", err);
  free(slab);
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  fseek(f, 0, SEEK_END);
  *size = (size_t)ftell(f);
  rewind(f);
  uint8_t *bytes = malloc(*size);
  ck_assert_ptr_nonnull(bytes);
  ck_assert_uint_eq(fread(bytes, 1, *size, f), *size);
  fclose(f);
  return bytes;
}

/* A uniform integer in [0, n). */
static size_t pick(test_rng *rng, size_t n) {
  return n ? (size_t)(test_rng_next(rng) % n) : 0;
}

/* One random mutation of `from` (size `size`) into `to` (room for size +
 * 16); returns the new size. `header_end` is where the data area starts. */
static size_t mutate(uint8_t *to, const uint8_t *from, size_t size,
                     size_t header_end, test_rng *rng) {
  memcpy(to, from, size);
  switch (pick(rng, 5)) {
  case 0: /* flips in the header length */
    to[pick(rng, 8)] ^= (uint8_t)(1u << pick(rng, 8));
    return size;
  case 1: /* flips in the JSON header */
    for (size_t k = 1 + pick(rng, 4); k > 0; k--)
      to[8 + pick(rng, header_end - 8)] ^= (uint8_t)(1 + pick(rng, 255));
    return size;
  case 2: /* flips in the data area */
    for (size_t k = 1 + pick(rng, 4); k > 0; k--)
      to[header_end + pick(rng, size - header_end)] ^=
          (uint8_t)(1u << pick(rng, 8));
    return size;
  case 3: /* cut short */ return pick(rng, size);
  default: { /* bytes inserted */
    size_t at = pick(rng, size + 1), count = 1 + pick(rng, 16);
    memmove(to + at + count, from + at, size - at);
    for (size_t k = 0; k < count; k++)
      to[at + k] = (uint8_t)test_rng_next(rng);
    return size + count;
  }
  }
}

START_TEST(damaged_files_fail_cleanly) {
  char path[4200], err[1024];
  snprintf(path, sizeof path, "%s/fuzz.safetensors", dir);
  size_t size;
  uint8_t *good = valid_file(path, &size);
  size_t header_end = 0; /* 8 + the header length */
  for (int b = 7; b >= 0; b--)
    header_end = header_end << 8 | good[b];
  header_end += 8;
  ck_assert_uint_lt(header_end, size);
  uint8_t *bytes = malloc(size + 16);
  ck_assert_ptr_nonnull(bytes);
  test_rng rng;
  test_rng_init(&rng, seed);
  int loaded_count = 0;
  for (int m = 0; m < MUTATIONS; m++) {
    size_t bad_size = mutate(bytes, good, size, header_end, &rng);
    ck_assert_int_eq(test_write_bytes(path, bytes, bad_size, 0), 0);
    mlp_checkpoint loaded;
    err[0] = '\0';
    if (mlp_checkpoint_load(path, NULL, 0, &loaded, err, sizeof err) != 0) {
      ck_assert_msg(err[0] != '\0', "mutation %d: failed without a message", m);
      ck_assert_msg(strstr(err, path) != NULL,
                    "mutation %d: message does not name the file: %s", m, err);
      ck_assert_ptr_null(loaded.slab);
      continue;
    }
    loaded_count++;
    const mlp_layout *layout = &loaded.layout;
    ck_assert_int_ge(layout->depth, 1);
    ck_assert_int_le(layout->depth, MLP_MAX_LAYERS);
    ck_assert_ptr_nonnull(loaded.slab);
    for (size_t i = 0; i < layout->slab_floats; i++)
      ck_assert_msg(isfinite(loaded.slab[i]),
                    "mutation %d: loaded a non-finite value at %zu", m, i);
    mlp_checkpoint_destroy(&loaded);
  }
  printf("checkpoint fuzz: %d mutations, %d loaded (harmless changes), the "
         "rest refused\n",
         MUTATIONS, loaded_count);
  free(bytes);
  free(good);
}
END_TEST

int main(void) {
  seed = test_seed("checkpoint_fuzz");
  Suite *suite = suite_create("checkpoint fuzz");
  TCase *tc = tcase_create("fuzz");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, damaged_files_fail_cleanly);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
