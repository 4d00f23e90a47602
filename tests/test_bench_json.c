/* test_bench_json.c: mnist_bench's rows (bench_rows.h) and JSON
 * (bench_json.h) against real runs: docs/bench/ours-1.json (the README
 * table's run 1) and docs/bench/ours-calls.json (session 6's run 1, whose
 * JSON also times every call: the later runs ran --no-layers). The
 * generated rows are ours-1.json's (same order, network, batch,
 * mode, precision, graphs, padding, activation); each row's twin is its
 * fused row, and every recorded speedup_vs_fused is the row's time over
 * that twin's. The recorded run rebuilt entry by entry through the cJSON
 * writer parses back to the same document: the same keys in the same
 * order, nesting, value types and values. Fixed records read back rounded
 * as the table prints them, strings escaped, the replaced file's mode
 * kept. Which rows a run keeps, and their labels: test_bench_rows.c. Plain
 * C, runs anywhere. */
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/bench_json.h"
#include "bench/bench_rows.h"
#include "tests/test_util.h"

static char dir[4096];

static void setup(void) {
  ck_assert_int_eq(test_make_temp_dir(dir, sizeof dir), 0);
}
static void teardown(void) {
  test_remove_dir(dir);
}

/* The parsed JSON file at `path`. */
static cJSON *parse_file(const char *path) {
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  size_t size = 1 << 20;
  char *text = malloc(size);
  ck_assert_ptr_nonnull(text);
  size_t got = fread(text, 1, size - 1, f);
  fclose(f);
  text[got] = '\0';
  cJSON *doc = cJSON_Parse(text);
  free(text);
  ck_assert_msg(doc != NULL, "%s is not JSON", path);
  return doc;
}

/* `got` is `want`: same type, object keys in the same order, the same
 * strings and flags, numbers equal to 1e-12 relative; but a rebuilt
 * unfused_over_fused is the ratio of the rounded times (3 decimals), not
 * of the measured ones: within 0.1 % of the recorded one. */
static void assert_same(const cJSON *got, const cJSON *want, const char *at) {
  ck_assert_msg((got->type & 0xff) == (want->type & 0xff),
                "%s: type %d, expected %d", at, got->type & 0xff,
                want->type & 0xff);
  if (cJSON_IsString(want))
    ck_assert_str_eq(got->valuestring, want->valuestring);
  int ratio = want->string && !strcmp(want->string, "unfused_over_fused");
  if (cJSON_IsNumber(want))
    ck_assert_msg(fabs(got->valuedouble - want->valuedouble) <=
                      (ratio ? 1e-3 : 1e-12) * fabs(want->valuedouble),
                  "%s: %.17g, expected %.17g", at, got->valuedouble,
                  want->valuedouble);
  if (!cJSON_IsObject(want) && !cJSON_IsArray(want)) return;
  ck_assert_msg(cJSON_GetArraySize(got) == cJSON_GetArraySize(want),
                "%s: %d children, expected %d", at, cJSON_GetArraySize(got),
                cJSON_GetArraySize(want));
  const cJSON *g = got->child;
  for (const cJSON *w = want->child; w; w = w->next, g = g->next) {
    char where[512];
    snprintf(where, sizeof where, "%s/%s", at, w->string ? w->string : "[]");
    if (w->string)
      ck_assert_msg(strcmp(g->string, w->string) == 0, "%s: key %s", where,
                    g->string);
    assert_same(g, w, where);
  }
}

static double num(const cJSON *o, const char *key) {
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsNumber(item) ? item->valuedouble : NAN;
}

static const char *str(const cJSON *o, const char *key) {
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(item) ? item->valuestring : "";
}

static int flag(const cJSON *o, const char *key) {
  return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, key));
}

/* The writer's record of a "training" entry of a parsed document. */
static bench_training_record training_of(const cJSON *o) {
  return (bench_training_record){
      .network = str(o, "network"),
      .batch = (int)num(o, "batch"),
      .mode = str(o, "mode"),
      .precision = str(o, "precision"),
      .graphs = flag(o, "graphs"),
      .ms_per_epoch = num(o, "ms_per_epoch"),
      .ms_min = num(o, "ms_min"),
      .ms_max = num(o, "ms_max"),
      .us_per_step = num(o, "us_per_step"),
      .kernels_per_step = (int)num(o, "kernels_per_step"),
      .critical_path_kernels = (int)num(o, "critical_path_kernels"),
      .launch_floor_ms = num(o, "launch_floor_ms"),
      .tflops = num(o, "tflops"),
      .fraction_of_peak = num(o, "fraction_of_peak"),
      .speedup_vs_fused = num(o, "speedup_vs_fused"),
      .test_accuracy = num(o, "test_accuracy"),
      .repeats = (int)num(o, "repeats"),
      .creation_orders = cJSON_HasObjectItem(o, "creation_orders")
                             ? (int)num(o, "creation_orders")
                             : 0,
      .pad_units = flag(o, "pad_units"),
      .activation = str(o, "activation"),
      .chain = cJSON_HasObjectItem(o, "chain") ? str(o, "chain") : NULL,
      .tuned_set =
          cJSON_HasObjectItem(o, "tuned_set") ? str(o, "tuned_set") : NULL,
      .algorithms_moved = cJSON_HasObjectItem(o, "algorithms_moved")
                              ? (int)num(o, "algorithms_moved")
                              : -1,
      .against_off = cJSON_HasObjectItem(o, "vs_off"),
      .vs_off = cJSON_HasObjectItem(o, "vs_off") ? num(o, "vs_off") : 0,
      .vs_off_min = cJSON_HasObjectItem(o, "vs_off") ? num(o, "vs_off_min") : 0,
      .vs_off_max = cJSON_HasObjectItem(o, "vs_off") ? num(o, "vs_off_max") : 0,
      .off_ms_per_epoch =
          cJSON_HasObjectItem(o, "vs_off") ? num(o, "off_ms_per_epoch") : 0,
      .same_launches_as_off =
          cJSON_HasObjectItem(o, "same_launches_as_off")
              ? cJSON_IsTrue(cJSON_GetObjectItem(o, "same_launches_as_off"))
              : -1};
}

/* The writer's record of a "calls" entry of a parsed document. */
static bench_call_record call_of(const cJSON *o) {
  int twin = cJSON_HasObjectItem(o, "fused_us");
  return (bench_call_record){
      .network = str(o, "network"),
      .precision = str(o, "precision"),
      .activation = str(o, "activation"),
      .call = str(o, "call"),
      .lane = str(o, "lane"),
      .m = (int)num(o, "m"),
      .n = (int)num(o, "n"),
      .k = (int)num(o, "k"),
      .epilogue = str(o, "epilogue"),
      .matmul_us = num(o, "matmul_us"),
      .fused_us = twin ? num(o, "fused_us") : 0,
      .unfused_us = twin ? num(o, "unfused_us") : 0,
      .split_us = cJSON_HasObjectItem(o, "split_us") ? num(o, "split_us") : 0};
}

START_TEST(recorded_run_rebuilt_through_cjson) {
  char path[4300];
  snprintf(path, sizeof path, "%s/docs/bench/ours-calls.json",
           MNIST_SOURCE_DIR);
  cJSON *want = parse_file(path);
  bench_json *doc = NULL;
  ck_assert_int_eq(bench_json_create(&doc, str(want, "gpu"),
                                     num(want, "launch_us"),
                                     str(want, "autotune")),
                   0);
  const cJSON *item;
  cJSON_ArrayForEach(item, cJSON_GetObjectItem(want, "matmul_tflops"))
      ck_assert_int_eq(
          bench_json_add_peak(doc, item->string, item->valuedouble), 0);
  cJSON_ArrayForEach(item, cJSON_GetObjectItem(want, "training")) {
    bench_training_record r = training_of(item);
    ck_assert_int_eq(bench_json_add_training(doc, &r), 0);
  }
  cJSON_ArrayForEach(item, cJSON_GetObjectItem(want, "calls")) {
    bench_call_record r = call_of(item);
    ck_assert_int_eq(bench_json_add_call(doc, &r), 0);
  }
  snprintf(path, sizeof path, "%s/ours.json", dir);
  ck_assert_int_eq(bench_json_write(doc, path), 0);
  bench_json_destroy(doc);
  cJSON *got = parse_file(path);
  ck_assert_int_gt(cJSON_GetArraySize(cJSON_GetObjectItem(got, "calls")), 0);
  assert_same(got, want, "");
  cJSON_Delete(got);
  cJSON_Delete(want);
}
END_TEST

/* Fixed records: values rounded to the table's decimals, strings escaped,
 * a DEFAULT call without fused and unfused times; the file it replaces
 * keeps its mode. */
START_TEST(fixed_records_read_back) {
  char path[4300];
  snprintf(path, sizeof path, "%s/bench.json", dir);
  ck_assert_int_eq(test_write_bytes(path, "old", 3, 0), 0);
  ck_assert_int_eq(chmod(path, 0640), 0);
  bench_json *doc = NULL;
  ck_assert_int_eq(bench_json_create(&doc, "GPU \"9000\"\n", 0.80912, "exact"),
                   0);
  ck_assert_int_eq(bench_json_add_peak(doc, "bf16", 787.20149), 0);
  bench_training_record t = {.network = "784-100-10",
                             .batch = 256,
                             .mode = "unfused",
                             .precision = "bf16",
                             .graphs = 0,
                             .ms_per_epoch = 11.61629,
                             .ms_min = 11.5,
                             .ms_max = 11.7,
                             .us_per_step = 49.43149,
                             .kernels_per_step = 14,
                             .critical_path_kernels = 12,
                             .launch_floor_ms = 2.28081,
                             .tflops = 1.65149,
                             .fraction_of_peak = 0.03214,
                             .speedup_vs_fused = 0.91206,
                             .test_accuracy = 0.97661,
                             .repeats = 5,
                             .creation_orders = 3,
                             .pad_units = 1,
                             .activation = "gelu",
                             .tuned_set = "0badf00d",
                             .algorithms_moved = 2,
                             .against_off = 1,
                             .vs_off = 0.99261,
                             .vs_off_min = 0.98,
                             .vs_off_max = 1.00449,
                             .off_ms_per_epoch = 11.70226,
                             .same_launches_as_off = 1};
  ck_assert_int_eq(bench_json_add_training(doc, &t), 0);
  bench_training_record untuned = t; /* as documents before the keys */
  untuned.tuned_set = NULL;
  untuned.algorithms_moved = -1;
  untuned.against_off = 0;
  bench_training_record other = t; /* against off, other launches */
  other.same_launches_as_off = 0;
  bench_training_record unread = t; /* against off, launches not known */
  unread.same_launches_as_off = -1;
  ck_assert_int_eq(bench_json_add_training(doc, &untuned), 0);
  ck_assert_int_eq(bench_json_add_training(doc, &other), 0);
  ck_assert_int_eq(bench_json_add_training(doc, &unread), 0);
  bench_call_record fused = {.network = "784-100-10",
                             .precision = "bf16",
                             .activation = "gelu",
                             .call = "forward 1",
                             .lane = "main",
                             .m = 100,
                             .n = 256,
                             .k = 784,
                             .epilogue = "GELU_AUX_BIAS",
                             .matmul_us = 8.7624,
                             .fused_us = 10,
                             .unfused_us = 12.5};
  bench_call_record plain = fused;
  plain.call = "weights 1";
  plain.lane = "side";
  plain.epilogue = "DEFAULT";
  plain.fused_us = plain.unfused_us = 0;
  bench_call_record split = fused;
  split.call = "data grad 2->1";
  split.epilogue = "DGELU_BGRAD";
  split.split_us = 9.25;
  ck_assert_int_eq(bench_json_add_call(doc, &fused), 0);
  ck_assert_int_eq(bench_json_add_call(doc, &plain), 0);
  ck_assert_int_eq(bench_json_add_call(doc, &split), 0);
  ck_assert_int_eq(bench_json_write(doc, path), 0);
  bench_json_destroy(doc);

  struct stat info;
  ck_assert_int_eq(stat(path, &info), 0);
  ck_assert_int_eq(info.st_mode & 07777, 0640);
  cJSON *got = parse_file(path);
  ck_assert_str_eq(str(got, "gpu"), "GPU \"9000\"\n");
  ck_assert_double_eq(num(got, "launch_us"), 0.809);
  ck_assert_double_eq(num(cJSON_GetObjectItem(got, "matmul_tflops"), "bf16"),
                      787.201);
  const cJSON *row =
      cJSON_GetArrayItem(cJSON_GetObjectItem(got, "training"), 0);
  ck_assert_double_eq(num(row, "ms_per_epoch"), 11.6163);
  ck_assert_double_eq(num(row, "us_per_step"), 49.431);
  ck_assert_double_eq(num(row, "launch_floor_ms"), 2.2808);
  ck_assert_double_eq(num(row, "speedup_vs_fused"), 0.9121);
  ck_assert_double_eq(num(row, "test_accuracy"), 0.9766);
  ck_assert_double_eq(num(row, "kernels_per_step"), 14);
  ck_assert_double_eq(num(row, "creation_orders"), 3);
  ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(row, "graphs")));
  ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(row, "pad_units")));
  ck_assert_str_eq(str(row, "mode"), "unfused");
  ck_assert_str_eq(str(row, "activation"), "gelu");
  ck_assert_str_eq(str(row, "tuned_set"), "0badf00d");
  ck_assert_double_eq(num(row, "algorithms_moved"), 2);
  ck_assert_double_eq(num(row, "vs_off"), 0.9926);
  ck_assert_double_eq(num(row, "vs_off_min"), 0.98);
  ck_assert_double_eq(num(row, "vs_off_max"), 1.0045);
  ck_assert_double_eq(num(row, "off_ms_per_epoch"), 11.7023);
  ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(row, "same_launches_as_off")));
  row = cJSON_GetArrayItem(cJSON_GetObjectItem(got, "training"), 1);
  ck_assert(!cJSON_HasObjectItem(row, "tuned_set"));
  ck_assert(!cJSON_HasObjectItem(row, "algorithms_moved"));
  ck_assert(!cJSON_HasObjectItem(row, "vs_off")); /* not timed: no keys */
  ck_assert(!cJSON_HasObjectItem(row, "vs_off_min"));
  ck_assert(!cJSON_HasObjectItem(row, "vs_off_max"));
  ck_assert(!cJSON_HasObjectItem(row, "off_ms_per_epoch"));
  ck_assert(!cJSON_HasObjectItem(row, "same_launches_as_off"));
  row = cJSON_GetArrayItem(cJSON_GetObjectItem(got, "training"), 2);
  ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(row, "same_launches_as_off")));
  ck_assert_double_eq(num(row, "vs_off"), 0.9926);
  row = cJSON_GetArrayItem(cJSON_GetObjectItem(got, "training"), 3);
  ck_assert(!cJSON_HasObjectItem(row, "same_launches_as_off"));
  ck_assert_double_eq(num(row, "off_ms_per_epoch"), 11.7023);
  const cJSON *calls = cJSON_GetObjectItem(got, "calls");
  ck_assert_int_eq(cJSON_GetArraySize(calls), 3);
  const cJSON *call = cJSON_GetArrayItem(calls, 0);
  ck_assert_double_eq(num(call, "matmul_us"), 8.762);
  ck_assert(!cJSON_HasObjectItem(call, "split_us")); /* not split: no key */
  ck_assert_double_eq(num(call, "unfused_over_fused"), 1.25);
  ck_assert_str_eq(str(call, "call"), "forward 1");
  call = cJSON_GetArrayItem(calls, 1);
  ck_assert_str_eq(str(call, "epilogue"), "DEFAULT");
  ck_assert(!cJSON_HasObjectItem(call, "fused_us"));
  ck_assert(!cJSON_HasObjectItem(call, "unfused_over_fused"));
  ck_assert_int_eq(cJSON_GetArraySize(call), 10);
  call = cJSON_GetArrayItem(calls, 2); /* the split time, a key added */
  ck_assert_double_eq(num(call, "split_us"), 9.25);
  ck_assert_double_eq(num(call, "fused_us"), 10);
  cJSON_Delete(got);
}
END_TEST

static const char *text_of(const cJSON *row, const char *key) {
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(row, key);
  ck_assert_msg(cJSON_IsString(item), "no string %s", key);
  return item->valuestring;
}

static double number_of(const cJSON *row, const char *key) {
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(row, key);
  ck_assert_msg(cJSON_IsNumber(item), "no number %s", key);
  return item->valuedouble;
}

static int flag_of(const cJSON *row, const char *key) {
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(row, key);
  ck_assert_msg(cJSON_IsBool(item), "no bool %s", key);
  return cJSON_IsTrue(item);
}

START_TEST(rows_match_the_recorded_run) {
  char path[4300];
  snprintf(path, sizeof path, "%s/docs/bench/ours-1.json", MNIST_SOURCE_DIR);
  cJSON *doc = parse_file(path);
  const cJSON *recorded = cJSON_GetObjectItemCaseSensitive(doc, "training");
  ck_assert(cJSON_IsArray(recorded));
  bench_row rows[BENCH_MAX_ROWS];
  int count = bench_rows_build(rows), net_count;
  const bench_net *nets = bench_nets(&net_count);
  ck_assert_int_eq(net_count, 3);
  ck_assert_int_eq(count, cJSON_GetArraySize(recorded));
  ck_assert_int_eq(count, 105); /* 3 networks x 35 rows (fp8 in both groups) */
  for (int i = 0; i < count; i++) {
    const cJSON *want = cJSON_GetArrayItem(recorded, i);
    const bench_row *row = &rows[i];
    trainer_config c;
    char err[128], name[64];
    ck_assert_int_eq(bench_net_config(&c, &nets[row->net], err, sizeof err), 0);
    trainer_config_name(name, sizeof name, &c);
    ck_assert_msg(strcmp(name, text_of(want, "network")) == 0, "row %d: %s", i,
                  name);
    ck_assert_int_eq(c.batch, (int)number_of(want, "batch"));
    ck_assert_str_eq(mlp_mode_name(row->mode), text_of(want, "mode"));
    ck_assert_str_eq(gpu_precision_name(row->precision),
                     text_of(want, "precision"));
    ck_assert_int_eq(row->graphs, flag_of(want, "graphs"));
    ck_assert_int_eq(row->pad_units, flag_of(want, "pad_units"));
    ck_assert_str_eq(lt_activation_name(row->activation),
                     text_of(want, "activation"));
    /* The twin: the fused row of the same kind, listed before it. */
    const bench_row *twin = &rows[row->twin];
    ck_assert_int_le(row->twin, i);
    ck_assert_int_eq(twin->mode, MLP_MODE_FUSED);
    ck_assert_int_eq(twin->net, row->net);
    ck_assert_int_eq(twin->precision, row->precision);
    ck_assert_int_eq(twin->graphs, row->graphs);
    ck_assert_int_eq(twin->pad_units, row->pad_units);
    ck_assert_int_eq(twin->activation, row->activation);
    if (row->mode == MLP_MODE_FUSED) ck_assert_int_eq(row->twin, i);
    /* The run divided by the twin it used: ms and speedups printed with
     * 4 decimals, so they agree to about 1e-4. */
    double ratio =
        number_of(want, "ms_per_epoch") /
        number_of(cJSON_GetArrayItem(recorded, row->twin), "ms_per_epoch");
    ck_assert_msg(fabs(ratio - number_of(want, "speedup_vs_fused")) < 3e-4,
                  "row %d: %g against %g", i, ratio,
                  number_of(want, "speedup_vs_fused"));
  }
  cJSON_Delete(doc);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("bench_json");
  TCase *tc = tcase_create("bench_json");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, recorded_run_rebuilt_through_cjson);
  tcase_add_test(tc, fixed_records_read_back);
  tcase_add_test(tc, rows_match_the_recorded_run);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
