/* test_fp8_util.h: what the FP8 GPU suites share: an FP8 network's input
 * built on the host (layers/mlp_fp8.h's batch, every code fp8_encode's),
 * codes downloaded and decoded, a host cast of a matrix in both layouts,
 * and the check that a GEMM's FP8 output is the cast of the exact result
 * up to the rounding its accumulation leaves open. */
#ifndef MNIST_EPILOGS_TEST_FP8_UTIL_H
#define MNIST_EPILOGS_TEST_FP8_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "layers/fp8.h"
#include "layers/mlp.h"
#include "lt/lt_matmul.h"
#include "tests/test_batch.h"
#include "tests/test_util.h"

/* An FP8 network's input of h_x (features, n), ld lt_ld(features): the
 * scale of its amax (fp8_scale_from_amax, E4M3), the codes
 * encode(x * scale) in both layouts, the scale record; d_block uploaded. */
typedef struct test_fp8_batch {
  void *d_block;
  float scale;
  uint8_t *h_x8;  /* (features, n), ld lt_ld_fp8(features) */
  uint8_t *h_x8t; /* (lt_ld_fp8(n), features), padding rows 0 */
} test_fp8_batch;

test_fp8_batch test_fp8_batch_make(const float *h_x, int features, int n);
void test_fp8_batch_free(test_fp8_batch *b);

/* Layer l's FP8 buffers (mlp_fp8_tensors; NULL where the layer has none;
 * layer 0's X8 and X8T: those of the batch d_x, of n samples). */
typedef struct test_fp8_view {
  const uint8_t *w8, *w8t, *x8, *x8t, *dz8, *dz8t;
  const float *partials; /* [fp8_cast_tiles(n)][out] */
} test_fp8_view;

test_fp8_view test_fp8_layer(const mlp *net, int l, const void *d_x, int n);

/* An FP8 network under test: the network of widths[0 .. depth] for
 * batches up to max_batch, as `options` say (fp8 set here; NULL: the
 * defaults), initialised from `seed`; a random batch of n (values in
 * [-1, 1) rounded to BF16, labels of the last width) and its FP8 batch;
 * a context of precision FP8. */
typedef struct test_fp8_run {
  gpu_context *ctx;
  mlp *net;
  test_batch batch;
  test_fp8_batch x;
  double *d_stats;
  int n;
} test_fp8_run;

void test_fp8_run_open(test_fp8_run *r, const int *widths, int depth,
                       int max_batch, int n, const mlp_options *options,
                       uint64_t seed);
/* `passes` training passes (forward and backward, no update) in `mode`. */
void test_fp8_run_passes(test_fp8_run *r, int passes, mlp_mode mode);
void test_fp8_run_close(test_fp8_run *r);

/* count bytes from the device, malloc'd. */
uint8_t *test_fp8_codes(const uint8_t *d_q, size_t count);
/* decode(q) * scale_inv of count codes from the device, malloc'd. */
double *test_fp8_decoded(const uint8_t *d_q, size_t count, lt_fp8 format,
                         float scale_inv);

/* Fails the test unless the codes at d_q ((rows, cols), ld ld_q) and, if
 * d_qt, at d_qt (transposed, ld ld_qt, rows cols .. lt_ld_fp8(cols) - 1
 * zero) are fp8_encode_scaled(x, scale) of src ((rows, cols), ld ld_src)
 * bit for bit; with `tolerant` (a GELU source whose host value may differ
 * from the device's in its last BF16 bit) within that bit and one FP8
 * rounding. `what` names the tensor in the message. */
void test_fp8_check_cast(const double *src, int ld_src, int rows, int cols,
                         const uint8_t *d_q, int ld_q, const uint8_t *d_qt,
                         int ld_qt, float scale, lt_fp8 format, int tolerant,
                         const char *what);

/* 1 when `code` is fp8_encode_scaled(v, scale) of some v in [lo, hi]
 * (lo <= hi): the cast is monotone, so these are exactly the codes whose
 * values lie between the casts of lo and of hi, both included. NaN codes
 * never are. */
int test_fp8_code_within(uint8_t code, double lo, double hi, float scale,
                         lt_fp8 format);

/* 1 when `code` is an acceptable FP8 cast of the exact value z computed by
 * a GEMM whose accumulation is within `bound` (absolute, before the
 * scale): the GPU casts some value of [z - bound, z + bound], and every
 * code of that interval's casts is one it may write
 * (test_fp8_code_within). Near zero, where E4M3's steps are finer than
 * the bound, that is more than the code next to the exact one. */
int test_fp8_code_near(uint8_t code, double z, double bound, float scale,
                       lt_fp8 format);

/* An FP8 call run exactly (test_mlp_fp8_calls.c says why it is exact):
 * its A and B overwritten with codes of integers -2 .. 2 (lda * m and
 * ldb * n bytes: the TN layout), its bias (if any) with integers -3 .. 3,
 * its scale slots with A 2^-1, B 2^-2 and an FP8 D's 2^-1; run on `lane`;
 * D, the ReLU mask and AMAX_D checked bit for bit against the exact
 * result (GELU: its input bit for bit, its output within the tanh
 * approximation). Fails the test naming `label`. */
void test_fp8_exact_call(gpu_context *ctx, int lane, const lt_matmul_call *call,
                         test_rng *rng, const char *label);

#endif
