/* bench_rows.h: what mnist_bench trains, as data: its networks, and its
 * rows generated from the lists networks x groups x precisions x modes,
 * each row knowing its network, precision, mode, graphs, padding and
 * activation, and the index of the fused row it is compared with. Plain C
 * (no GPU): the rows can be listed and tested anywhere. */
#ifndef MNIST_EPILOGS_BENCH_ROWS_H
#define MNIST_EPILOGS_BENCH_ROWS_H

#include <stddef.h>

#include "gpu/gpu_options.h"
#include "layers/mlp_mode.h"
#include "lt/lt_shape.h"
#include "train/train_config.h"

/* Timed epochs per row and creation order at most (--repeats). */
#define BENCH_MAX_REPEATS 100

/* Rows in a twin group at most: fused, unfused and auto. */
#define BENCH_MAX_GROUP 3

/* Rows at most (all networks together). */
#define BENCH_MAX_ROWS 128

typedef struct bench_net {
  int hidden[3];
  int hidden_count;
  int batch;
} bench_net;

typedef struct bench_row {
  int net; /* index into bench_nets() */
  gpu_precision precision;
  mlp_mode mode;
  int graphs;    /* 1: each epoch replayed as a CUDA graph */
  int pad_units; /* 1: widths padded to 8 (mlp_options.pad_units) */
  lt_activation activation;
  int twin; /* index of the fused row of the same network, precision,
               graphs, padding and activation; a fused row's is its own */
} bench_row;

/* The rows of the twin group that starts at row g of rows[0 .. count): a
 * fused row and the rows whose twin it is, which bench_rows_build lists
 * together. */
int bench_group_size(const bench_row *rows, int count, int g);

/* Which row of a twin group of `size` rows (an offset from its first) runs
 * i-th in timed round `round` (1, 2, ...; 0 is the warm-up, in the rows'
 * order). An epoch's time depends on the rows run before it: in the rows'
 * order, auto (always right after its unfused twin) ran 1.6-4.3 % behind
 * unfused at 784-4096-4096-10 TF32 GELU with the same choices and kernels
 * (the H200 of sessions 6, 8 and 9; 0.3-0.7 % on session 7's); with the
 * order reversed every other round, 0.2 %, but auto at FP32 GELU, then
 * right after a TF32 row in three rounds of five, 2.5 % behind unfused
 * (140.43-146.55 ms against 140.54-141.48: session 9's call D). So for
 * three rows the six orders come in turn: in any five rounds in a row each
 * row runs first in its round at most twice and right after each other
 * row at most twice, and no such slowdown sets the median of a creation
 * order's five (the rounds are numbered on across the orders). That holds
 * because a run keeps or leaves out whole groups (their rows share
 * network, precision and activation). Two rows alternate (the second row
 * runs first in three rounds of five). */
int bench_group_order(int size, int round, int i);

/* Which row of a twin group of `size` rows (an offset from its first) is
 * made i-th in pass `pass` (0 .. size - 1): the group's trainers are made
 * `size` times, each time in the rows' order rotated by `pass`, so each row
 * is made once in each place. Within one process the trainer made first
 * ran slower than one made after it with the same step: at 784-100-10 FP8
 * ReLU 7.67-7.70 ms against 7.50-7.54 whichever of fused and auto it was
 * (session 21's call F), a 2.7 % that a median over one order keeps and
 * the 1 % the rows are compared at cannot hold. Pass 0 is the one that
 * tunes (the later passes take its choices), so tuning and being made
 * first are not crossed: fused's trainer both tunes and is made first.
 * The passes assume the whole group runs, as the selection guarantees
 * (bench_group_order). */
int bench_creation_order(int size, int pass, int i);

/* Which rows a run asks for: -1 keeps every precision / activation; a
 * precision the GPU cannot run (gpu_precision_check), or an activation
 * whose epilogues cuBLASLt refuses in a precision there (the start-up
 * probe, lt_run_epilogues), is never kept. */
typedef struct bench_selection {
  int only_network; /* 0: every network; i + 1: bench_nets()[i] only */
  int precision;    /* a gpu_precision, or -1 */
  int activation;   /* an lt_activation, or -1 */
  int refused[GPU_PRECISION_COUNT]; /* 1: this GPU cannot run it */
  /* 1: cuBLASLt refuses an epilogue of this activation's training step in
   * this precision on this GPU; the precision's other rows still run */
  int refused_activation[GPU_PRECISION_COUNT][LT_ACTIVATION_COUNT];
} bench_selection;

/* The networks, in order; `count` gets their number. */
const bench_net *bench_nets(int *count);

/* Fills rows[0..count) with every row of every network, in the order they
 * are trained and printed (a fused row before its unfused and auto rows).
 * Returns the count (at most BENCH_MAX_ROWS). */
int bench_rows_build(bench_row rows[BENCH_MAX_ROWS]);

/* Whether `sel` keeps `precision` (asked for, and not refused). */
int bench_precision_selected(const bench_selection *sel, int precision);

/* Whether `sel` keeps rows of `activation` in `precision`: the precision
 * kept, the activation asked for, and not refused in that precision. */
int bench_activation_selected(const bench_selection *sel, int precision,
                              int activation);

/* The index of the network named `name` ("seed", "mid", "big": the
 * --network values, bench_network_choices), or -1. */
int bench_network_parse(const char *name);
const char *const *bench_network_choices(void);

/* Whether `sel` keeps `row` (its network, precision and activation). */
int bench_row_selected(const bench_row *row, const bench_selection *sel);

/* "fused", "unfused+pad", "auto+gelu": the row's mode with its padding and
 * activation, as the table prints it. */
void bench_row_label(char *out, size_t size, const bench_row *row);

/* `c` = the defaults with the network's widths and batch. Returns 0, or -1
 * with `err` (from trainer_config_set_hidden). */
int bench_net_config(trainer_config *c, const bench_net *net, char *err,
                     size_t err_size);

#endif
