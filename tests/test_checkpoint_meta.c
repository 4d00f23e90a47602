/* test_checkpoint_meta.c: checkpoint/'s metadata on good input: mode and
 * padding are optional (a file from an older writer loads with both
 * unknown, and its description leaves them out), every "__metadata__" value
 * a new file holds is a string (PyTorch's reader takes Dict[str, str]), and
 * the one-line description mnist_predict prints says what is recorded and
 * nothing else (the file's control bytes as '?', cut short and still
 * terminated); a value the program does not have (a mode, a padding, a
 * precision, a schedule, an order) or a number out of its range (lr,
 * momentum, steps) is refused naming the key. Saving and loading the rest:
 * test_checkpoint.c. */
#include <check.h>
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint/mlp_checkpoint.h"
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

/* The metadata every writer so far wrote: a file from before the mode and
 * padding were recorded loads as before, with both unknown, and the
 * description leaves them out; a new file's whole "__metadata__" is
 * strings (safetensors' rule: PyTorch's reader takes Dict[str, str]), mode
 * and pad_to among them. */
START_TEST(mode_and_padding_are_optional_strings) {
  mlp_layout layout;
  float *slab = test_checkpoint_small_slab(&layout, seed);
  char path[4200], err[1024], text[512];
  snprintf(path, sizeof path, "%s/old.safetensors", dir);
  mlp_checkpoint_meta meta;
  test_checkpoint_full_meta(&meta);
  meta.mode[0] = meta.pad_to[0] = 0; /* an older writer's file */
  meta.fp8_format[0] = meta.fp8_scaling[0] = meta.fp8_fast_accum[0] = 0;
  mlp_checkpoint loaded;
  test_checkpoint_save_and_load(&loaded, path, &layout, slab, &meta);
  ck_assert_str_eq(loaded.meta.mode, "");
  ck_assert_str_eq(loaded.meta.pad_to, "");
  ck_assert_str_eq(loaded.meta.schedule, "cosine");
  mlp_checkpoint_meta_describe(text, sizeof text, &loaded.meta);
  ck_assert_str_eq(text, "7-5-3, gelu, bf16, 5 epochs of batch 128, test "
                         "accuracy 98.32%");
  mlp_checkpoint_destroy(&loaded);
  test_checkpoint_full_meta(&meta);
  ck_assert_msg(
      mlp_checkpoint_save(path, &layout, slab, &meta, err, sizeof err) == 0,
      "%s", err);
  uint8_t *bytes = NULL;
  uint64_t n = 0;
  cJSON *root = test_checkpoint_read_header(path, &bytes, &n);
  const cJSON *pairs = cJSON_GetObjectItem(root, "__metadata__");
  int count = 0;
  for (const cJSON *item = pairs ? pairs->child : NULL; item;
       item = item->next, count++)
    ck_assert_msg(cJSON_IsString(item), "metadata '%s' is not a string",
                  item->string);
  ck_assert_int_eq(count, MLP_CHECKPOINT_PAIRS); /* none dropped */
  ck_assert_str_eq(cJSON_GetObjectItem(pairs, "mode")->valuestring, "auto");
  ck_assert_str_eq(cJSON_GetObjectItem(pairs, "pad_to")->valuestring, "16");
  ck_assert_str_eq(cJSON_GetObjectItem(pairs, "fp8_fast_accum")->valuestring,
                   "none");
  snprintf(meta.precision, sizeof meta.precision, "fp8");
  mlp_checkpoint_meta_describe(text, sizeof text, &meta);
  ck_assert_msg(strstr(text, "fp8, fp8 hybrid, delayed scaling, fast "
                             "accumulation none"),
                "%s", text);
  cJSON_Delete(root);
  free(bytes);
  free(slab);
}
END_TEST

typedef struct describe_case {
  const char *mode, *pad_to;
  int epochs, batch;
  double accuracy;
  const char *expected;
} describe_case;

static const describe_case describe_cases[] = {
    {"fused", "none", 5, 256, 98.2,
     "784-100-10, relu, fp32, fused mode, units not padded, 5 epochs of "
     "batch 256, test accuracy 98.20%"},
    {"unfused", "8", -1, 100, -1,
     "784-100-10, relu, fp32, unfused mode, units padded to 8, batch 100"},
    {"", "", 3, -1, -1, "784-100-10, relu, fp32, 3 epochs"},
    /* the file's own text: control bytes and others not shown as such */
    {"au\x1b[2Jto", "1\n6", -1, -1, -1,
     "784-100-10, relu, fp32, au?[2Jto mode, units padded to 1?6"},
};

START_TEST(description_says_what_is_recorded) {
  const describe_case *c = &describe_cases[_i];
  mlp_checkpoint_meta meta;
  mlp_checkpoint_meta_init(&meta);
  char text[512];
  mlp_checkpoint_meta_describe(text, sizeof text, &meta);
  ck_assert_str_eq(text, ""); /* nothing recorded */
  snprintf(meta.widths, sizeof meta.widths, "784-100-10");
  snprintf(meta.activation, sizeof meta.activation, "relu");
  snprintf(meta.precision, sizeof meta.precision, "fp32");
  snprintf(meta.mode, sizeof meta.mode, "%s", c->mode);
  snprintf(meta.pad_to, sizeof meta.pad_to, "%s", c->pad_to);
  meta.epochs = c->epochs;
  meta.batch = c->batch;
  meta.test_accuracy = c->accuracy;
  mlp_checkpoint_meta_describe(text, sizeof text, &meta);
  ck_assert_str_eq(text, c->expected);
  /* cut short, still terminated */
  mlp_checkpoint_meta_describe(text, 12, &meta);
  ck_assert_str_eq(text, "784-100-10,");
}
END_TEST

/* A file whose metadata names what the program does not have, or holds a
 * number out of its range, is refused naming the key and what was found
 * (a reader never describes "banana mode"). */
typedef struct bad_value {
  size_t offset; /* of the text in mlp_checkpoint_meta */
  const char *value;
  const char *words[2];
} bad_value;

#define AT(field) offsetof(mlp_checkpoint_meta, field)
static const bad_value bad_values[] = {
    {AT(mode),
     "banana",
     {"'mode': expected 'fused', 'unfused' or 'auto'", "found 'banana'"}},
    {AT(pad_to),
     "banana",
     {"'pad_to': expected 'none', '8', '16' or '32'", "found 'banana'"}},
    {AT(pad_to), "12", {"'pad_to'", "found '12'"}},
    {AT(precision),
     "fp64",
     {"'precision': expected 'fp32', 'tf32', 'bf16', "
      "'fp16' or 'fp8'",
      "found 'fp64'"}},
    {AT(schedule), "step", {"'schedule'", "found 'step'"}},
    {AT(order), "random", {"'order'", "found 'random'"}},
    {AT(lr), "banana", {"'lr': expected a number > 0", "found 'banana'"}},
    {AT(lr), "0", {"'lr': expected a number > 0", "found '0'"}},
    {AT(lr), "1e39", {"'lr'", "found '1e39'"}},   /* inf as a float */
    {AT(lr), "1e-45", {"'lr'", "found '1e-45'"}}, /* subnormal */
    {AT(momentum),
     "1",
     {"'momentum': expected a number >= 0 and < 1", "found '1'"}},
    {AT(steps), "-3", {"'steps': expected an integer", "found '-3'"}},
    {AT(steps), "three", {"'steps'", "found 'three'"}},
};

START_TEST(bad_values_are_refused) {
  const bad_value *c = &bad_values[_i];
  mlp_layout layout;
  float *slab = test_checkpoint_small_slab(&layout, seed);
  char path[4200], err[1024] = "";
  snprintf(path, sizeof path, "%s/bad-%d.safetensors", dir, _i);
  mlp_checkpoint_meta meta;
  test_checkpoint_full_meta(&meta);
  snprintf((char *)&meta + c->offset, MLP_CHECKPOINT_TEXT, "%s", c->value);
  ck_assert_msg(
      mlp_checkpoint_save(path, &layout, slab, &meta, err, sizeof err) == 0,
      "%s", err);
  free(slab);
  mlp_checkpoint loaded;
  ck_assert_int_eq(mlp_checkpoint_load(path, NULL, 0, &loaded, err, sizeof err),
                   -1);
  ck_assert_ptr_null(loaded.slab);
  ck_assert_msg(
      strstr(err, path) && strstr(err, c->words[0]) && strstr(err, c->words[1]),
      "case %d: '%s' lacks '%s' or '%s'", _i, err, c->words[0], c->words[1]);
}
END_TEST

int main(void) {
  seed = test_seed("checkpoint_meta");
  Suite *suite = suite_create("checkpoint_meta");
  TCase *tc = tcase_create("metadata");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, mode_and_padding_are_optional_strings);
  tcase_add_loop_test(tc, bad_values_are_refused, 0,
                      sizeof bad_values / sizeof bad_values[0]);
  tcase_add_loop_test(tc, description_says_what_is_recorded, 0,
                      sizeof describe_cases / sizeof describe_cases[0]);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
