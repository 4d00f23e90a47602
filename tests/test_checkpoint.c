/* test_checkpoint.c: checkpoint/ on good input: save then load gives the
 * same floats, widths and metadata (layouts whose widths are not multiples
 * of 8 included); the file is PyTorch's nn.Sequential state dict ("0.weight"
 * row-major (out, in)) with a space-padded header; writes are atomic (a
 * missing folder, a full disk, a folder in the way leave the target as it
 * was and no temporary behind); and the safetensors reader takes what the
 * format allows (tensors listed out of order, zero-size tensors, unpadded
 * headers). The optional metadata and the description mnist_predict prints:
 * test_checkpoint_meta.c; malformed files: test_checkpoint_bad.c; random
 * damage: test_checkpoint_fuzz.c. */
#include <check.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "checkpoint/mlp_checkpoint.h"
#include "checkpoint/safetensors.h"
#include "lt/lt_shape.h"
#include "tests/test_checkpoint_util.h"
#include "tests/test_util.h"

static char dir[4096];
static uint64_t seed;

static void setup(void) {
  ck_assert_int_eq(test_make_temp_dir(dir, sizeof dir), 0);
}
static void teardown(void) {
  test_remove_dir(dir);
}

/* Entries in `folder` whose names hold ".partial-": temporaries left. */
static int count_partials(const char *folder) {
  DIR *d = opendir(folder);
  ck_assert_ptr_nonnull(d);
  int count = 0;
  struct dirent *entry;
  while ((entry = readdir(d)) != NULL)
    count += strstr(entry->d_name, ".partial-") != NULL;
  closedir(d);
  return count;
}

typedef struct layout_case {
  int depth;
  int widths[6];
} layout_case;

static const layout_case layouts[] = {
    {2, {7, 5, 3}},          {1, {3, 1}},       {2, {784, 100, 10}},
    {4, {1, 9, 17, 8, 2}},   {2, {16, 16, 16}}, {3, {784, 1024, 1024, 10}},
    {5, {5, 1, 1, 1, 1, 1}},
};

START_TEST(round_trip_is_exact) {
  const layout_case *c = &layouts[_i];
  test_rng rng;
  test_rng_init(&rng, seed + (uint64_t)_i);
  mlp_layout layout;
  float *slab = test_checkpoint_random_slab(&layout, c->widths, c->depth, &rng);
  mlp_checkpoint_meta meta;
  test_checkpoint_full_meta(&meta);
  char path[4200], err[1024];
  snprintf(path, sizeof path, "%s/model.safetensors", dir);
  ck_assert_msg(
      mlp_checkpoint_save(path, &layout, slab, &meta, err, sizeof err) == 0,
      "%s", err);
  mlp_checkpoint loaded;
  /* Once taking the file's widths, once asking for them. */
  for (int ask = 0; ask < 2; ask++) {
    ck_assert_msg(mlp_checkpoint_load(path, ask ? c->widths : NULL, c->depth,
                                      &loaded, err, sizeof err) == 0,
                  "%s", err);
    ck_assert_int_eq(loaded.layout.depth, c->depth);
    for (int l = 0; l <= c->depth; l++)
      ck_assert_int_eq(loaded.layout.widths[l], c->widths[l]);
    ck_assert_uint_eq(loaded.layout.slab_floats, layout.slab_floats);
    /* Bit for bit, padding (zero in both) included. */
    ck_assert_mem_eq(loaded.slab, slab, layout.slab_floats * sizeof *slab);
    const mlp_checkpoint_meta *m = &loaded.meta;
    ck_assert_str_eq(m->format, MLP_CHECKPOINT_FORMAT);
    char widths[128];
    mlp_checkpoint_widths_text(widths, sizeof widths, c->widths, c->depth);
    ck_assert_str_eq(m->widths, widths);
    ck_assert_str_eq(m->activation, meta.activation);
    ck_assert_str_eq(m->precision, meta.precision);
    ck_assert_str_eq(m->version, meta.version);
    ck_assert_str_eq(m->lr, meta.lr);
    ck_assert_str_eq(m->momentum, meta.momentum);
    ck_assert_str_eq(m->schedule, meta.schedule);
    ck_assert_str_eq(m->order, meta.order);
    ck_assert_str_eq(m->steps, meta.steps);
    ck_assert_str_eq(m->pixel_scale, meta.pixel_scale);
    ck_assert_str_eq(m->pixel_shift, meta.pixel_shift);
    ck_assert_str_eq(m->mode, "auto");
    ck_assert_str_eq(m->pad_to, "16");
    ck_assert_int_eq(m->epochs, 5);
    ck_assert_int_eq(m->batch, 128);
    ck_assert_int_eq(m->has_seed, 1);
    ck_assert(m->seed == meta.seed);
    ck_assert(m->test_accuracy == meta.test_accuracy);
    mlp_checkpoint_destroy(&loaded);
    ck_assert_ptr_null(loaded.slab);
  }
  free(slab);
}
END_TEST

START_TEST(no_metadata_reads_as_unknown) {
  mlp_layout layout;
  float *slab = test_checkpoint_small_slab(&layout, seed);
  char path[4200], err[1024];
  snprintf(path, sizeof path, "%s/bare.safetensors", dir);
  mlp_checkpoint loaded;
  test_checkpoint_save_and_load(&loaded, path, &layout, slab, NULL);
  ck_assert_str_eq(loaded.meta.widths, "7-5-3");
  ck_assert_str_eq(loaded.meta.activation, "");
  ck_assert_str_eq(loaded.meta.mode, "");
  ck_assert_str_eq(loaded.meta.pad_to, "");
  ck_assert_int_eq(loaded.meta.epochs, -1);
  ck_assert_int_eq(loaded.meta.batch, -1);
  ck_assert_int_eq(loaded.meta.has_seed, 0);
  ck_assert(loaded.meta.test_accuracy < 0);
  mlp_checkpoint_destroy(&loaded);
  mlp_checkpoint_destroy(NULL);
  /* A diverged run is refused, naming the tensor; nothing is written. */
  slab[layout.b_offset[1] + 2] = 1.0f / 0.0f;
  snprintf(path, sizeof path, "%s/diverged.safetensors", dir);
  ck_assert_int_eq(
      mlp_checkpoint_save(path, &layout, slab, NULL, err, sizeof err), -1);
  ck_assert_msg(strstr(err, path) && strstr(err, "'2.bias'") &&
                    strstr(err, "finite"),
                "%s", err);
  struct stat info;
  ck_assert_int_ne(stat(path, &info), 0);
  free(slab);
}
END_TEST

/* The little-endian float at `p`. */
static float float_at(const uint8_t *p) {
  uint32_t bits = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                  (uint32_t)p[3] << 24;
  float value;
  memcpy(&value, &bits, 4);
  return value;
}

START_TEST(file_is_a_pytorch_state_dict) {
  int widths[3] = {7, 5, 3};
  mlp_layout layout;
  char err[1024], path[4200];
  ck_assert_int_eq(mlp_layout_init(&layout, widths, 2, err, sizeof err), 0);
  float *slab = calloc(layout.slab_floats, sizeof *slab);
  ck_assert_ptr_nonnull(slab);
  for (int o = 0; o < 5; o++) {
    for (int i = 0; i < 7; i++)
      slab[layout.w_offset[0] + (size_t)o * lt_ld(7) + i] = o * 100.0f + i;
    slab[layout.b_offset[0] + o] = -1.0f - o;
  }
  snprintf(path, sizeof path, "%s/torch.safetensors", dir);
  ck_assert_msg(
      mlp_checkpoint_save(path, &layout, slab, NULL, err, sizeof err) == 0,
      "%s", err);
  uint8_t *bytes = NULL;
  uint64_t n = 0;
  cJSON *root = test_checkpoint_read_header(path, &bytes, &n);
  /* The reference pads with spaces after the JSON, fewer than 8. */
  size_t end = 8 + (size_t)n;
  while (bytes[end - 1] == ' ')
    end--;
  ck_assert_int_eq(bytes[end - 1], '}');
  ck_assert_uint_lt(8 + n - end, 8);
  const cJSON *meta = cJSON_GetObjectItem(root, "__metadata__");
  ck_assert_str_eq(cJSON_GetObjectItem(meta, "format")->valuestring,
                   MLP_CHECKPOINT_FORMAT);
  ck_assert_str_eq(cJSON_GetObjectItem(meta, "widths")->valuestring, "7-5-3");
  const uint8_t *data = bytes + 8 + n;
  const char *names[2] = {"0.weight", "0.bias"};
  for (int t = 0; t < 2; t++) {
    const cJSON *entry = cJSON_GetObjectItem(root, names[t]);
    ck_assert_ptr_nonnull(entry);
    ck_assert_str_eq(cJSON_GetObjectItem(entry, "dtype")->valuestring, "F32");
    const cJSON *shape = cJSON_GetObjectItem(entry, "shape");
    ck_assert_int_eq(cJSON_GetArraySize(shape), t == 0 ? 2 : 1);
    ck_assert_int_eq(cJSON_GetArrayItem(shape, 0)->valueint, 5);
    if (t == 0) ck_assert_int_eq(cJSON_GetArrayItem(shape, 1)->valueint, 7);
    const cJSON *offsets = cJSON_GetObjectItem(entry, "data_offsets");
    int begin = cJSON_GetArrayItem(offsets, 0)->valueint;
    int end = cJSON_GetArrayItem(offsets, 1)->valueint;
    ck_assert_int_eq(end - begin, t == 0 ? 5 * 7 * 4 : 5 * 4);
    for (int k = 0; k < (end - begin) / 4; k++) {
      float want = t == 0 ? (k / 7) * 100.0f + k % 7 : -1.0f - k;
      ck_assert_float_eq(float_at(data + begin + 4 * k), want);
    }
  }
  ck_assert_ptr_nonnull(cJSON_GetObjectItem(root, "2.weight"));
  ck_assert_ptr_nonnull(cJSON_GetObjectItem(root, "2.bias"));
  ck_assert_int_eq(cJSON_GetArraySize(root), 5);
  cJSON_Delete(root);
  free(bytes);
  free(slab);
}
END_TEST

/* Saves a 784-100-10 network to `path`; returns what save returned. */
static int save_some(const char *path, char *err, size_t err_size) {
  test_rng rng;
  test_rng_init(&rng, seed);
  int widths[3] = {784, 100, 10};
  mlp_layout layout;
  float *slab = test_checkpoint_random_slab(&layout, widths, 2, &rng);
  int status = mlp_checkpoint_save(path, &layout, slab, NULL, err, err_size);
  free(slab);
  return status;
}

START_TEST(write_is_atomic) {
  char path[4200], missing[4200], err[1024];
  struct stat info;
  /* A missing folder: refused, naming the path and the reason. */
  snprintf(missing, sizeof missing, "%s/no-such-folder/model.safetensors", dir);
  ck_assert_int_eq(save_some(missing, err, sizeof err), -1);
  ck_assert_msg(strstr(err, missing) && strstr(err, "No such file"), "%s", err);
  /* An existing target is replaced only by a complete file. */
  snprintf(path, sizeof path, "%s/model.safetensors", dir);
  ck_assert_int_eq(test_write_bytes(path, "old", 3, 0), 0);
  struct rlimit old_limit, small;
  ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  small = old_limit;
  small.rlim_cur = 4096; /* a "full disk": writes past 4 KiB fail */
  void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
  ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &small), 0);
  int status = save_some(path, err, sizeof err);
  ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &old_limit), 0);
  signal(SIGXFSZ, old_handler);
  ck_assert_int_eq(status, -1);
  ck_assert_msg(strstr(err, path) && strstr(err, "File too large"), "%s", err);
  ck_assert_int_eq(stat(path, &info), 0);
  ck_assert_int_eq(info.st_size, 3);
  ck_assert_int_eq(count_partials(dir), 0);
  /* A folder in the way: the rename fails, the folder stays. */
  char folder[4200];
  snprintf(folder, sizeof folder, "%s/a-folder", dir);
  ck_assert_int_eq(mkdir(folder, 0700), 0);
  ck_assert_int_eq(save_some(folder, err, sizeof err), -1);
  ck_assert_msg(strstr(err, folder) != NULL, "%s", err);
  ck_assert_int_eq(stat(folder, &info), 0);
  ck_assert(S_ISDIR(info.st_mode));
  ck_assert_int_eq(count_partials(dir), 0);
  /* Success replaces it. */
  ck_assert_msg(save_some(path, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(stat(path, &info), 0);
  ck_assert_int_gt(info.st_size, 784 * 100 * 4);
  ck_assert_int_eq(count_partials(dir), 0);
  mlp_checkpoint loaded;
  ck_assert_msg(mlp_checkpoint_load(path, NULL, 0, &loaded, err, sizeof err) ==
                    0,
                "%s", err);
  mlp_checkpoint_destroy(&loaded);
}
END_TEST

START_TEST(reader_takes_what_the_format_allows) {
  /* Listed out of offset order, a zero-size tensor, unknown keys, a header
   * whose length is not a multiple of 8. */
  const char *header =
      "{\"b\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[8,20]},"
      "\"empty\":{\"dtype\":\"F32\",\"shape\":[0,4],\"data_offsets\":[8,8]},"
      "\"a\":{\"dtype\":\"F32\",\"shape\":[1,2],\"data_offsets\":[0,8],"
      "\"note\":1},\"__metadata__\":{\"k\":\"v\"}}";
  const float data[5] = {1, 2, 3, 4, 5};
  char path[4200], err[1024];
  snprintf(path, sizeof path, "%s/any.safetensors", dir);
  ck_assert_int_eq(test_write_safetensors(path, header, data, 5), 0);
  safetensors_file *file;
  ck_assert_msg(safetensors_read(&file, path, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(safetensors_count(file), 3);
  ck_assert_str_eq(safetensors_at(file, 0)->name, "a");
  ck_assert_str_eq(safetensors_at(file, 2)->name, "b");
  ck_assert_ptr_null(safetensors_at(file, 3));
  const safetensors_tensor *b = safetensors_find(file, "b");
  ck_assert_int_eq(b->rank, 1);
  ck_assert_uint_eq(b->shape[0], 3);
  ck_assert_uint_eq((uintptr_t)b->data % 4, 0);
  ck_assert_float_eq(b->data[2], 5);
  ck_assert_uint_eq(safetensors_find(file, "empty")->count, 0);
  ck_assert_ptr_null(safetensors_find(file, "c"));
  ck_assert_int_eq(safetensors_meta_count(file), 1);
  ck_assert_str_eq(safetensors_meta(file, "k"), "v");
  ck_assert_str_eq(safetensors_meta_at(file, 0).key, "k");
  ck_assert_ptr_null(safetensors_meta(file, "x"));
  safetensors_file_destroy(file);
  safetensors_file_destroy(NULL);
  /* No tensors at all, written by the writer. */
  ck_assert_int_eq(safetensors_write(path, NULL, 0, NULL, 0, err, sizeof err),
                   0);
  ck_assert_msg(safetensors_read(&file, path, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(safetensors_count(file), 0);
  ck_assert_int_eq(safetensors_meta_count(file), 0);
  safetensors_file_destroy(file);
}
END_TEST

int main(void) {
  seed = test_seed("checkpoint");
  Suite *suite = suite_create("checkpoint");
  TCase *tc = tcase_create("good input");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_loop_test(tc, round_trip_is_exact, 0,
                      (int)(sizeof layouts / sizeof layouts[0]));
  tcase_add_test(tc, no_metadata_reads_as_unknown);
  tcase_add_test(tc, file_is_a_pytorch_state_dict);
  tcase_add_test(tc, write_is_atomic);
  tcase_add_test(tc, reader_takes_what_the_format_allows);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
