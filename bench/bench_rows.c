/* bench_rows.c: the benchmark's networks and rows (bench_rows.h). */
#include "bench/bench_rows.h"

#include <stdio.h>
#include <string.h>

/* NVIDIA's epilogue example, a mid-size and a large network. */
static const bench_net nets[] = {
    {{100}, 1, 256},
    {{1024, 1024}, 2, 256},
    {{4096, 4096}, 2, 4096},
};

static const gpu_precision every_precision[] = {
    GPU_PRECISION_FP32, GPU_PRECISION_TF32, GPU_PRECISION_BF16,
    GPU_PRECISION_FP16, GPU_PRECISION_FP8};
static const gpu_precision bf16_only[] = {GPU_PRECISION_BF16};
static const gpu_precision fp32_only[] = {GPU_PRECISION_FP32};
/* Fused first in every list: the others are compared with it. */
static const mlp_mode three_modes[] = {MLP_MODE_FUSED, MLP_MODE_UNFUSED,
                                       MLP_MODE_AUTO};
static const mlp_mode two_modes[] = {MLP_MODE_FUSED, MLP_MODE_UNFUSED};

/* A group of rows: every listed precision, each in every listed mode. */
typedef struct row_group {
  const gpu_precision *precisions;
  int precision_count;
  const mlp_mode *modes;
  int mode_count;
  int graphs, pad_units;
  lt_activation activation;
} row_group;

#define LIST(a) a, (int)(sizeof a / sizeof a[0])

/* Per network: every precision fused, unfused and auto with graphs (so
 * twins run side by side), BF16 again with the widths padded to 8, FP32
 * fused and unfused launched from the host, then every precision fused,
 * unfused and auto with GELU. */
static const row_group groups[] = {
    {LIST(every_precision), LIST(three_modes), 1, 0, LT_ACTIVATION_RELU},
    {LIST(bf16_only), LIST(three_modes), 1, 1, LT_ACTIVATION_RELU},
    {LIST(fp32_only), LIST(two_modes), 0, 0, LT_ACTIVATION_RELU},
    {LIST(every_precision), LIST(three_modes), 1, 0, LT_ACTIVATION_GELU},
};

const bench_net *bench_nets(int *count) {
  *count = (int)(sizeof nets / sizeof nets[0]);
  return nets;
}

int bench_rows_build(bench_row rows[BENCH_MAX_ROWS]) {
  int count = 0;
  for (int n = 0; n < (int)(sizeof nets / sizeof nets[0]); n++)
    for (int g = 0; g < (int)(sizeof groups / sizeof groups[0]); g++) {
      const row_group *group = &groups[g];
      for (int p = 0; p < group->precision_count; p++) {
        int fused = -1; /* the group's fused row in this precision */
        for (int m = 0; m < group->mode_count && count < BENCH_MAX_ROWS; m++) {
          if (group->modes[m] == MLP_MODE_FUSED) fused = count;
          rows[count++] = (bench_row){.net = n,
                                      .precision = group->precisions[p],
                                      .mode = group->modes[m],
                                      .graphs = group->graphs,
                                      .pad_units = group->pad_units,
                                      .activation = group->activation,
                                      .twin = fused};
        }
      }
    }
  return count;
}

int bench_group_size(const bench_row *rows, int count, int g) {
  int size = 1;
  while (g + size < count && rows[g + size].twin == rows[g].twin)
    size++;
  return size;
}

int bench_group_order(int size, int round, int i) {
  static const int three[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1},
                                  {0, 2, 1}, {1, 0, 2}, {2, 1, 0}};
  if (round == 0) return i;
  if (size == 3) return three[(round - 1) % 6][i];
  return (i + round) % size;
}

int bench_creation_order(int size, int pass, int i) {
  return (i + pass) % size;
}

int bench_precision_selected(const bench_selection *sel, int precision) {
  return (sel->precision < 0 || precision == sel->precision) &&
         !sel->refused[precision];
}

int bench_activation_selected(const bench_selection *sel, int precision,
                              int activation) {
  return bench_precision_selected(sel, precision) &&
         (sel->activation < 0 || activation == sel->activation) &&
         !sel->refused_activation[precision][activation];
}

const char *const *bench_network_choices(void) {
  /* In the order of nets[]. */
  static const char *const names[] = {"seed", "mid", "big", NULL};
  return names;
}

int bench_network_parse(const char *name) {
  const char *const *names = bench_network_choices();
  for (int i = 0; names[i]; i++)
    if (strcmp(name, names[i]) == 0) return i;
  return -1;
}

int bench_row_selected(const bench_row *row, const bench_selection *sel) {
  return (sel->only_network == 0 || row->net == sel->only_network - 1) &&
         bench_activation_selected(sel, (int)row->precision,
                                   (int)row->activation);
}

void bench_row_label(char *out, size_t size, const bench_row *row) {
  snprintf(out, size, "%s%s%s", mlp_mode_name(row->mode),
           row->pad_units ? "+pad" : "",
           row->activation == LT_ACTIVATION_GELU ? "+gelu" : "");
}

int bench_net_config(trainer_config *c, const bench_net *net, char *err,
                     size_t err_size) {
  *c = trainer_config_defaults();
  if (trainer_config_set_hidden(c, net->hidden, net->hidden_count, err,
                                err_size) != 0)
    return -1;
  c->batch = net->batch;
  return 0;
}
