/* test_bench_trace_table.c: the plain-C parts of mnist_bench --trace-step,
 * on hand-made tables: a graph's topological order, the kernels a kernel
 * waits for (through other nodes, with edge types) and its kernel count
 * and longest chain (graph_count.h); the critical path over measured
 * times, the lane rule, the short names and the Markdown table
 * (bench_trace_table.h); the flag's parsing. Plain C, runs anywhere. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/bench_options.h"
#include "bench/bench_trace_table.h"
#include "bench/graph_count.h"
#include "tests/test_util.h"

/* Kernels A, B, C, D and a memset M, numbered out of order: D 0, C 1,
 * B 2, M 3, A 4. A -> B is programmatic; A -> M -> C; B -> C; C -> D;
 * B -> D. */
enum { D = 0, C = 1, B = 2, M = 3, A = 4, NODES = 5 };
static int kernel_flags[NODES] = {1, 1, 1, 0, 1};
static const graph_edge base_edges[6] = {{A, B, 1}, {A, M, 0}, {M, C, 0},
                                         {B, C, 0}, {C, D, 0}, {B, D, 0}};

/* The table over `edges` (room for 8), which gets base_edges, then
 * `extra` when not NULL. */
static graph_table table(graph_edge *edges, const graph_edge *extra) {
  memcpy(edges, base_edges, sizeof base_edges);
  if (extra) edges[6] = *extra;
  return (graph_table){.count = NODES,
                       .kernel = kernel_flags,
                       .edge_count = extra ? 7 : 6,
                       .edge = edges};
}

START_TEST(graph_order_is_topological) {
  graph_edge edges[8];
  graph_table g = table(edges, NULL);
  int order[NODES];
  ck_assert_int_eq(graph_table_order(&g, order), 0);
  /* After A both B and M are ready: the lower index first. */
  int want[NODES] = {A, B, M, C, D};
  for (int i = 0; i < NODES; i++)
    ck_assert_int_eq(order[i], want[i]);
  int count = 0, chain = 0;
  ck_assert_int_eq(graph_table_count_kernels(&g, &count, &chain), 0);
  ck_assert_int_eq(count, 4);
  ck_assert_int_eq(chain, 4); /* A B C D; the memset is not counted */
}
END_TEST

START_TEST(graph_cycles_and_bad_edges_are_refused) {
  int order[NODES], count, chain;
  graph_edge edges[8];
  graph_table g = table(edges, &(graph_edge){D, A, 0}); /* a cycle */
  ck_assert_int_eq(graph_table_order(&g, order), -1);
  ck_assert_int_eq(graph_table_count_kernels(&g, &count, &chain), -1);
  g = table(edges, &(graph_edge){D, NODES, 0}); /* names no node */
  ck_assert_int_eq(graph_table_order(&g, order), -1);
}
END_TEST

START_TEST(kernel_preds_pass_through_other_nodes) {
  graph_edge edges[8];
  graph_table g = table(edges, NULL);
  int pred[4], programmatic[4];
  ck_assert_int_eq(graph_kernel_preds(&g, A, pred, programmatic, 4), 0);
  ck_assert_int_eq(graph_kernel_preds(&g, B, pred, programmatic, 4), 1);
  ck_assert_int_eq(pred[0], A);
  ck_assert_int_eq(programmatic[0], 1);
  /* C: A through the memset (a full wait), and B. */
  ck_assert_int_eq(graph_kernel_preds(&g, C, pred, programmatic, 4), 2);
  ck_assert_int_eq(pred[0] + pred[1], A + B);
  ck_assert_int_eq(programmatic[0] + programmatic[1], 0);
  ck_assert_int_eq(graph_kernel_preds(&g, C, pred, programmatic, 1), -1);
  /* A kernel reached twice is listed once. */
  g = table(edges, &(graph_edge){A, C, 0});
  ck_assert_int_eq(graph_kernel_preds(&g, C, pred, programmatic, 4), 2);
}
END_TEST

/* The seed network's step as the issue reconstructs it: a main chain and
 * the output layer's weight gradient (row 4) beside it. */
static void seed_rows(trace_kernel rows[8]) {
  static const float times[8][2] = {
      {1.0f, 5.5f},   {5.5f, 8.5f},   {8.5f, 11.5f},   {11.5f, 14.5f},
      {11.5f, 17.5f}, {14.5f, 16.0f}, {16.0f, 19.75f}, {19.75f, 22.0f}};
  static const int preds[8][2] = {{-1, -1}, {0, -1}, {1, -1}, {2, -1},
                                  {2, -1},  {3, -1}, {5, -1}, {6, 4}};
  memset(rows, 0, 8 * sizeof *rows);
  for (int i = 0; i < 8; i++) {
    snprintf(rows[i].name, sizeof rows[i].name, "k%d", i);
    rows[i].ready_us = times[i][0];
    rows[i].end_us = times[i][1];
    for (int p = 0; p < 2; p++)
      if (preds[i][p] >= 0) rows[i].pred[rows[i].pred_count++] = preds[i][p];
  }
  rows[1].pred_programmatic[0] = 1;
}

static void assert_path(const trace_path *path, const int *want, int length) {
  ck_assert_int_eq(path->length, length);
  for (int i = 0; i < length; i++)
    ck_assert_int_eq(path->row[i], want[i]);
}

START_TEST(critical_path_follows_the_latest_release) {
  trace_kernel rows[8];
  int room[8];
  trace_path path = {.row = room};
  seed_rows(rows);
  ck_assert_int_eq(trace_critical_path(&path, rows, 8), 7);
  assert_path(&path, (int[]){0, 1, 2, 3, 5, 6, 7}, 7);
  ck_assert_float_eq_tol(path.span_us, 21.0f, 1e-5f);
  ck_assert_float_eq_tol(path.busy_us, 21.0f, 1e-5f);
  trace_mark_lanes(rows, 8, &path);
  for (int i = 0; i < 8; i++)
    ck_assert_int_eq(rows[i].main_lane, i != 4);
  /* The side branch ends last before SGD: the path goes through it,
   * whatever the kernel counts say, and a gap shows as waiting. */
  rows[4].end_us = 21.0f;
  rows[7].ready_us = 21.0f;
  ck_assert_int_eq(trace_critical_path(&path, rows, 8), 5);
  assert_path(&path, (int[]){0, 1, 2, 4, 7}, 5);
  ck_assert_float_eq_tol(path.busy_us, 4.5f + 3 + 3 + 9.5f + 1, 1e-5f);
  trace_mark_lanes(rows, 8, &path);
  ck_assert_int_eq(rows[3].main_lane, 0);
  ck_assert_int_eq(rows[4].main_lane, 1);
  /* A tie goes to the later row. */
  rows[4].end_us = rows[6].end_us;
  ck_assert_int_eq(trace_critical_path(&path, rows, 8), 7);
  ck_assert_int_eq(path.row[5], 6);
}
END_TEST

START_TEST(critical_path_refuses_forward_preds) {
  trace_kernel rows[8];
  int room[8];
  trace_path path = {.row = room};
  seed_rows(rows);
  rows[3].pred[0] = 5; /* not before its row: not topological */
  ck_assert_int_eq(trace_critical_path(&path, rows, 8), -1);
  ck_assert_int_eq(trace_critical_path(&path, rows, 0), 0);
}
END_TEST

static const char *const name_cases[][2] = {
    {"_Z12xent_forwardPKfPKiiPf", "xent_forward"},
    {"_Z3sgdILi4EEvPf", "sgd"},
    {"nvjet_sm90_tst_64x8_64x16_4x1_v_bz_reluauxbias_TNT",
     "nvjet_sm90_tst_64x8_64x16_4x1_v_bz_reluauxbias_TNT"},
    {"_ZN8cublasLt12globalKernelEv", "_ZN8cublasLt12globalKernelEv"},
    {"_Z99short", "_Z99short"}, /* a length past the end: as it is */
};

START_TEST(short_names) {
  char out[TRACE_NAME_CHARS + 1];
  trace_short_name(out, name_cases[_i][0]);
  ck_assert_str_eq(out, name_cases[_i][1]);
}
END_TEST

START_TEST(long_names_are_cut) {
  char name[300], out[TRACE_NAME_CHARS + 1];
  memset(name, 'x', sizeof name - 1);
  name[sizeof name - 1] = '\0';
  trace_short_name(out, name);
  ck_assert_uint_eq(strlen(out), TRACE_NAME_CHARS);
  ck_assert_str_eq(out + TRACE_NAME_CHARS - 3, "...");
  name[TRACE_NAME_CHARS] = '\0'; /* exactly the limit: kept whole */
  trace_short_name(out, name);
  ck_assert_str_eq(out, name);
}
END_TEST

START_TEST(markdown_table) {
  trace_kernel rows[8];
  int room[8];
  trace_path path = {.row = room};
  seed_rows(rows);
  ck_assert_int_eq(trace_critical_path(&path, rows, 8), 7);
  trace_mark_lanes(rows, 8, &path);
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  ck_assert_ptr_nonnull(out);
  trace_print_markdown(out, rows, 8, &path);
  ck_assert_int_eq(fclose(out), 0);
  const char *want[] = {
      "| # | kernel | lane | ready (us) | end (us) | duration (us) | waited "
      "for |\n|---:|",
      "| 0 | `k0` | main | 1.00 | 5.50 | 4.50 | start |\n",
      "| 1 | `k1` | main | 5.50 | 8.50 | 3.00 | 0 (programmatic) |\n",
      "| 4 | `k4` | side | 11.50 | 17.50 | 6.00 | 2 (full) |\n",
      "| 7 | `k7` | main | 19.75 | 22.00 | 2.25 | 6 (full), 4 (full) |\n",
      "critical path (7 of 8 kernels): 0 -> 1 -> 2 -> 3 -> 5 -> 6 -> 7\n",
      "span 21.00 us (ready of #0 to end of #7), busy 21.00 us"};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    ck_assert_msg(strstr(text, want[i]), "expected '%s' in:\n%s", want[i],
                  text);
  free(text);
}
END_TEST

START_TEST(trace_flag) {
  bench_options o;
  char err[512];
  char *trace[] = {"mnist_bench", "--trace-step", "--precision", "fp16"};
  ck_assert_int_eq(bench_options_parse(&o, 4, trace, err, sizeof err), 0);
  ck_assert_int_eq(o.trace, 1);
  ck_assert_int_eq(o.profile, 0);
  char *both[] = {"mnist_bench", "--trace-step", "--profile-step"};
  ck_assert_int_eq(bench_options_parse(&o, 3, both, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "--profile-step, --trace-step and "
                            "--alternatives: expected at most one") &&
                    strstr(err, "found 2"),
                "%s", err);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("bench_trace_table");
  TCase *tc = tcase_create("bench_trace_table");
  tcase_add_test(tc, graph_order_is_topological);
  tcase_add_test(tc, graph_cycles_and_bad_edges_are_refused);
  tcase_add_test(tc, kernel_preds_pass_through_other_nodes);
  tcase_add_test(tc, critical_path_follows_the_latest_release);
  tcase_add_test(tc, critical_path_refuses_forward_preds);
  tcase_add_loop_test(tc, short_names, 0,
                      (int)(sizeof name_cases / sizeof name_cases[0]));
  tcase_add_test(tc, long_names_are_cut);
  tcase_add_test(tc, markdown_table);
  tcase_add_test(tc, trace_flag);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
