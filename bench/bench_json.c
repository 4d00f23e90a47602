/* bench_json.c: the benchmark's JSON document through cJSON
 * (bench_json.h). */
#include "bench/bench_json.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/bench_output.h"

struct bench_json {
  cJSON *root;
  cJSON *peaks, *training, *calls; /* owned by root */
  int failed;                      /* an addition ran out of memory */
};

/* `value` rounded to `decimals` places (as the table prints it); NaN and
 * infinities as they are (cJSON writes them as null). */
static void add_number(bench_json *doc, cJSON *object, const char *key,
                       double value, int decimals) {
  double scale = pow(10.0, decimals);
  if (isfinite(value)) value = round(value * scale) / scale;
  if (!cJSON_AddNumberToObject(object, key, value)) doc->failed = 1;
}

static void add_string(bench_json *doc, cJSON *object, const char *key,
                       const char *value) {
  if (!cJSON_AddStringToObject(object, key, value)) doc->failed = 1;
}

static void add_int(bench_json *doc, cJSON *object, const char *key,
                    int value) {
  if (!cJSON_AddNumberToObject(object, key, value)) doc->failed = 1;
}

static void add_bool(bench_json *doc, cJSON *object, const char *key,
                     int value) {
  if (!cJSON_AddBoolToObject(object, key, value != 0)) doc->failed = 1;
}

int bench_json_create(bench_json **out, const char *gpu, double launch_us,
                      const char *autotune) {
  bench_json *doc = calloc(1, sizeof *doc);
  *out = NULL;
  if (!doc || !(doc->root = cJSON_CreateObject())) {
    free(doc);
    fprintf(stderr, "bench_json: out of host memory\n");
    return -1;
  }
  add_string(doc, doc->root, "gpu", gpu);
  doc->peaks = cJSON_AddObjectToObject(doc->root, "matmul_tflops");
  add_number(doc, doc->root, "launch_us", launch_us, 3);
  add_string(doc, doc->root, "autotune", autotune);
  doc->training = cJSON_AddArrayToObject(doc->root, "training");
  doc->calls = cJSON_AddArrayToObject(doc->root, "calls");
  if (doc->failed || !doc->peaks || !doc->training || !doc->calls) {
    bench_json_destroy(doc);
    fprintf(stderr, "bench_json: out of host memory\n");
    return -1;
  }
  *out = doc;
  return 0;
}

void bench_json_destroy(bench_json *doc) {
  if (!doc) return;
  cJSON_Delete(doc->root);
  free(doc);
}

int bench_json_add_peak(bench_json *doc, const char *precision, double tflops) {
  add_number(doc, doc->peaks, precision, tflops, 3);
  return doc->failed ? -1 : 0;
}

/* A new object appended to `array`; NULL (and the document failed) when
 * out of memory. */
static cJSON *append_object(bench_json *doc, cJSON *array) {
  cJSON *object = cJSON_CreateObject();
  if (!object || !cJSON_AddItemToArray(array, object)) {
    cJSON_Delete(object);
    doc->failed = 1;
    return NULL;
  }
  return object;
}

int bench_json_add_training(bench_json *doc, const bench_training_record *r) {
  cJSON *o = append_object(doc, doc->training);
  if (!o) return -1;
  add_string(doc, o, "network", r->network);
  add_int(doc, o, "batch", r->batch);
  add_string(doc, o, "mode", r->mode);
  add_string(doc, o, "precision", r->precision);
  add_bool(doc, o, "graphs", r->graphs);
  add_number(doc, o, "ms_per_epoch", r->ms_per_epoch, 4);
  add_number(doc, o, "ms_min", r->ms_min, 4);
  add_number(doc, o, "ms_max", r->ms_max, 4);
  add_number(doc, o, "us_per_step", r->us_per_step, 3);
  add_int(doc, o, "kernels_per_step", r->kernels_per_step);
  add_int(doc, o, "critical_path_kernels", r->critical_path_kernels);
  add_number(doc, o, "launch_floor_ms", r->launch_floor_ms, 4);
  add_number(doc, o, "tflops", r->tflops, 3);
  add_number(doc, o, "fraction_of_peak", r->fraction_of_peak, 4);
  add_number(doc, o, "speedup_vs_fused", r->speedup_vs_fused, 4);
  add_number(doc, o, "test_accuracy", r->test_accuracy, 4);
  add_int(doc, o, "repeats", r->repeats);
  if (r->creation_orders > 0)
    add_int(doc, o, "creation_orders", r->creation_orders);
  add_bool(doc, o, "pad_units", r->pad_units);
  add_string(doc, o, "activation", r->activation);
  if (r->chain) add_string(doc, o, "chain", r->chain);
  if (r->tuned_set) add_string(doc, o, "tuned_set", r->tuned_set);
  if (r->algorithms_moved >= 0)
    add_int(doc, o, "algorithms_moved", r->algorithms_moved);
  if (r->against_off) {
    add_number(doc, o, "vs_off", r->vs_off, 4);
    add_number(doc, o, "vs_off_min", r->vs_off_min, 4);
    add_number(doc, o, "vs_off_max", r->vs_off_max, 4);
    add_number(doc, o, "off_ms_per_epoch", r->off_ms_per_epoch, 4);
    if (r->same_launches_as_off >= 0)
      add_bool(doc, o, "same_launches_as_off", r->same_launches_as_off);
  }
  return doc->failed ? -1 : 0;
}

int bench_json_add_call(bench_json *doc, const bench_call_record *r) {
  cJSON *o = append_object(doc, doc->calls);
  if (!o) return -1;
  add_string(doc, o, "network", r->network);
  add_string(doc, o, "precision", r->precision);
  add_string(doc, o, "activation", r->activation);
  add_string(doc, o, "call", r->call);
  add_string(doc, o, "lane", r->lane);
  add_int(doc, o, "m", r->m);
  add_int(doc, o, "n", r->n);
  add_int(doc, o, "k", r->k);
  add_string(doc, o, "epilogue", r->epilogue);
  add_number(doc, o, "matmul_us", r->matmul_us, 3);
  if (r->fused_us > 0) {
    add_number(doc, o, "fused_us", r->fused_us, 3);
    add_number(doc, o, "unfused_us", r->unfused_us, 3);
    add_number(doc, o, "unfused_over_fused", r->unfused_us / r->fused_us, 4);
  }
  if (r->split_us > 0) add_number(doc, o, "split_us", r->split_us, 3);
  return doc->failed ? -1 : 0;
}

int bench_json_write(const bench_json *doc, const char *path) {
  if (doc->failed) {
    fprintf(stderr,
            "bench_json: %s not written: the document ran out of "
            "host memory\n",
            path);
    return -1;
  }
  char *text = cJSON_Print(doc->root);
  if (!text) {
    fprintf(stderr, "bench_json: out of host memory printing %s\n", path);
    return -1;
  }
  int status = bench_output_replace(path, text);
  cJSON_free(text);
  return status;
}
