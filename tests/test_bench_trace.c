/* test_bench_trace.c: mnist_bench --trace-step end to end on the real
 * data: for each small network the table lists as many kernel nodes as
 * graph_count_step counts, in order, each on a lane, with
 * 0 <= ready <= end (measured from the start event) and its duration;
 * the critical path is the main lane; the step times are positive. And
 * --alternatives: every row either timed with its kernels named (a call
 * captured alone is a graph without edges) or refused with the reason.
 * Skips (77) without a GPU, or without MNIST (naming MNIST_DIR). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tests/test_gpu.h"
#include "tests/test_util.h"

static const char *mnist_dir;

/* One network's section of the output, as parsed. */
typedef struct section {
  int kernels, counted, rows, main_rows, path_length;
  float untraced_us;
} section;

/* Checks one table row (row `expected` of the section) and counts it. */
static void check_row(section *s, const char *line, int expected) {
  int index = -1;
  char lane[16] = "";
  float ready = -1, end = -1, duration = -1;
  const char *after_name = strstr(line + 1, "` | ");
  ck_assert_msg(sscanf(line, "| %d |", &index) == 1 && after_name, "%s", line);
  ck_assert_msg(sscanf(after_name, "` | %15s | %f | %f | %f |", lane, &ready,
                       &end, &duration) == 4,
                "%s", line);
  ck_assert_int_eq(index, expected);
  ck_assert_msg(!strcmp(lane, "main") || !strcmp(lane, "side"), "%s", line);
  ck_assert_msg(ready >= 0, "ready < 0: %s", line);
  /* A kernel released by a programmatic edge may end before its
   * predecessor has completed, which is when its ready event records.
   * Otherwise end >= ready, to the events' resolution: cudaEventElapsedTime
   * resolves about 0.5 us (CUDA runtime API), and the ready and end events
   * are recorded on different lanes (measured on the H200: a kernel 0.18 us
   * short of a side-lane predecessor's event). */
  if (!strstr(line, "programmatic"))
    ck_assert_msg(end >= ready - 0.5f, "end < ready: %s", line);
  ck_assert_float_eq_tol(duration, end - ready, 0.011f);
  s->rows++;
  s->main_rows += !strcmp(lane, "main");
}

/* Reads the section from `f` after its "## " line, up to its critical
 * path line. */
static section read_section(FILE *f) {
  section s = {-1, -2, 0, 0, -1, -1};
  char line[4096];
  while (fgets(line, sizeof line, f) && strncmp(line, "critical path (", 15)) {
    const char *untraced = strstr(line, "untraced ");
    sscanf(line, "kernel nodes: %d (graph_count_step: %d,", &s.kernels,
           &s.counted);
    if (untraced) sscanf(untraced, "untraced %f", &s.untraced_us);
    if (line[0] == '|' && line[2] >= '0' && line[2] <= '9')
      check_row(&s, line, s.rows);
  }
  int of = -1;
  ck_assert_msg(sscanf(line, "critical path (%d of %d kernels)", &s.path_length,
                       &of) == 2,
                "no critical path line, last line: %s", line);
  ck_assert_int_eq(of, s.kernels);
  return s;
}

START_TEST(trace_lists_every_kernel) {
  char command[8192];
  snprintf(command, sizeof command,
           "'%s' --trace-step --precision bf16 --data-dir '%s'",
           MNIST_BENCH_PATH, mnist_dir);
  printf("+ %s\n", command);
  fflush(stdout);
  FILE *f = popen(command, "r");
  ck_assert_ptr_nonnull(f);
  const char *titles[] = {"## 784-100-10 batch 256, bf16, auto+pad",
                          "## 784-1024-1024-10 batch 256, bf16, auto+pad"};
  int found = 0;
  char line[4096];
  while (fgets(line, sizeof line, f)) {
    fputs(line, stdout);
    if (strncmp(line, "## ", 3) != 0) continue;
    ck_assert_msg(found < 2 &&
                      !strncmp(line, titles[found], strlen(titles[found])),
                  "unexpected section %s", line);
    section s = read_section(f);
    ck_assert_int_gt(s.kernels, 0);
    ck_assert_int_eq(s.kernels, s.counted);
    ck_assert_int_eq(s.rows, s.kernels);
    ck_assert_int_ge(s.path_length, 1);
    ck_assert_int_eq(s.main_rows, s.path_length);
    ck_assert_float_gt(s.untraced_us, 0);
    found++;
  }
  int status = pclose(f);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                "mnist_bench --trace-step failed (status %d)", status);
  ck_assert_int_eq(found, 2);
}
END_TEST

/* Every row of --alternatives: "call epilogue way m n k" then either
 * "us ratio kernels" with us > 0 and at least one kernel named, or
 * "refused: why" for an alternative only (DRELU, DGELU, BGRADA, split);
 * the plain GEMM is timed in both shapes. */
START_TEST(alternatives_time_every_call) {
  char command[8192];
  snprintf(command, sizeof command, "'%s' --alternatives --precision bf16",
           MNIST_BENCH_PATH);
  printf("+ %s\n", command);
  fflush(stdout);
  FILE *f = popen(command, "r");
  ck_assert_ptr_nonnull(f);
  char line[4096];
  int timed = 0, refused = 0, plain = 0;
  while (fgets(line, sizeof line, f)) {
    fputs(line, stdout);
    char call[16], epilogue[32], way[16];
    int m, n, k, used = 0;
    if (sscanf(line, "%15s %31s %15s %d %d %d %n", call, epilogue, way, &m, &n,
               &k, &used) != 6 ||
        used == 0)
      continue;
    const char *rest = line + used;
    if (!strncmp(rest, "refused: ", 9)) {
      /* Only an alternative may be refused: the step's own epilogues
       * (and the plain GEMM) passed the start-up probe. */
      int alternative = !strcmp(epilogue, "DRELU") ||
                        !strcmp(epilogue, "DGELU") ||
                        !strcmp(epilogue, "BGRADA") || !strcmp(way, "split");
      ck_assert_msg(alternative, "a step's own call refused: %s", line);
      refused++;
      continue;
    }
    float us = 0;
    ck_assert_msg(sscanf(rest, "%f", &us) == 1 && us > 0, "%s", line);
    ck_assert_msg(strchr(rest, '_') || strstr(rest, "kernel"),
                  "no kernel named: %s", line);
    ck_assert_msg(!strstr(rest, "(name not available)"), "%s", line);
    if (!strcmp(epilogue, "DEFAULT")) plain++;
    timed++;
  }
  int status = pclose(f);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                "mnist_bench --alternatives failed (status %d)", status);
  ck_assert_int_ge(plain, 2);
  ck_assert_int_ge(timed, 8);
  printf("alternatives: %d rows timed, %d refused\n", timed, refused);
}
END_TEST

int main(void) {
  test_require_gpu("bench_trace");
  char why[1024];
  const char *mnist[] = {MNIST_SOURCE_DIR "/data/mnist",
                         MNIST_SOURCE_DIR "/../shared/data/mnist", NULL};
  mnist_dir = test_find_data("MNIST_DIR", mnist, why, sizeof why);
  if (!mnist_dir) {
    printf("SKIP bench_trace: MNIST %s\n", why);
    return TEST_SKIP;
  }
  Suite *suite = suite_create("bench_trace");
  TCase *tc = tcase_create("bench_trace");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, trace_lists_every_kernel);
  tcase_add_test(tc, alternatives_time_every_call);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 1);
}
