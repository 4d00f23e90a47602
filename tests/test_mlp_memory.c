/* test_mlp_memory.c: the GPU bytes an MLP needs, counted before mlp_create
 * allocates (layers/mlp_memory.c), table-driven over types, activations,
 * training or inference and batch sizes (the activation and aux bytes
 * worked out by hand below), the overflow cases, the refusal's wording, and
 * that the issue's 65536x3 network at batch 65536 needs more than an H200
 * has (141 GB). CPU only. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "layers/mlp_memory.h"
#include "tests/test_util.h"

typedef struct memory_case {
  const char *name;
  lt_dtype type;
  lt_activation activation;
  int inference_only;
  size_t batch, scratch;
  size_t slab_factor; /* bytes per slab element: the slabs allocated */
  size_t activations; /* by hand, for 784-100-10 */
} memory_case;

/* 784-100-10. Layer 0: lt_ld(100) = 104 rows, 104 * 256 = 26624 elements
 * (a multiple of 128); mask lt_aux_ld(100) / 8 = 16 bytes a column, 4096
 * for 256. Layer 1: 16 rows, 4096 elements; mask 16 * 256 = 4096. GELU aux:
 * 104 * 2 * 256 = 53248 and 16 * 2 * 256 = 8192 bytes in BF16. Batch 1: 104
 * and 16 elements round up to 128; masks of 16 bytes to 256. */
static const memory_case cases[] = {
    {"fp32 relu training", LT_DTYPE_F32, LT_ACTIVATION_RELU, 0, 256, 1000,
     4 + 4 + 4, 2 * 4 * 26624 + 4096 + 2 * 4 * 4096 + 4096 + 1000},
    {"fp32 relu inference", LT_DTYPE_F32, LT_ACTIVATION_RELU, 1, 256, 1000, 4,
     4 * 26624 + 4096 + 4 * 4096 + 4096 + 1000},
    {"bf16 relu training", LT_DTYPE_BF16, LT_ACTIVATION_RELU, 0, 256, 1000,
     4 + 2 + 4 + 2, 2 * 2 * 26624 + 4096 + 2 * 2 * 4096 + 4096 + 1000},
    {"bf16 gelu training", LT_DTYPE_BF16, LT_ACTIVATION_GELU, 0, 256, 1000,
     4 + 2 + 4 + 2, 2 * 2 * 26624 + 53248 + 2 * 2 * 4096 + 8192 + 1000},
    {"fp16 relu inference", LT_DTYPE_F16, LT_ACTIVATION_RELU, 1, 256, 0, 4 + 2,
     2 * 26624 + 4096 + 2 * 4096 + 4096},
    {"fp32 batch 1", LT_DTYPE_F32, LT_ACTIVATION_RELU, 0, 1, 0, 4 + 4 + 4,
     2 * 4 * 128 + 256 + 2 * 4 * 128 + 256},
};

static void layout_of(mlp_layout *out, const int *widths, int depth) {
  char err[128];
  ck_assert_msg(mlp_layout_init(out, widths, depth, err, sizeof err) == 0, "%s",
                err);
}

START_TEST(counts_what_mlp_create_allocates) {
  const memory_case *c = &cases[_i];
  const int widths[] = {784, 100, 10};
  mlp_layout layout;
  layout_of(&layout, widths, 2);
  mlp_memory m;
  ck_assert_int_eq(mlp_memory_need(&m, &layout, c->batch, c->type,
                                   c->activation, c->inference_only,
                                   c->scratch),
                   0);
  ck_assert_msg(m.slabs == layout.slab_floats * c->slab_factor,
                "%s: slabs %zu, expected %zu", c->name, m.slabs,
                layout.slab_floats * c->slab_factor);
  ck_assert_msg(m.activations == c->activations,
                "%s: activations %zu, expected %zu", c->name, m.activations,
                c->activations);
  ck_assert_uint_eq(m.total, m.slabs + m.activations);
}
END_TEST

/* 784-65536-65536-65536-10 at batch 65536 in FP32, training: the slabs
 * alone are 3 x 4 bytes x 2 x 65536^2 = 103 GB, the activations 3 layers x
 * 2 x 4 x 65536^2 = 103 GB more: past an H200's 141 GB, so the GPU suite's
 * refusal test (test_mlp.c) cannot fit there. */
START_TEST(the_issue_network_exceeds_an_h200) {
  const int widths[] = {784, 65536, 65536, 65536, 10};
  mlp_layout layout;
  layout_of(&layout, widths, 4);
  mlp_memory m;
  ck_assert_int_eq(mlp_memory_need(&m, &layout, 65536, LT_DTYPE_F32,
                                   LT_ACTIVATION_RELU, 0, 0),
                   0);
  ck_assert_msg(m.slabs > 103000000000u && m.activations > 103000000000u,
                "slabs %zu, activations %zu", m.slabs, m.activations);
  ck_assert_msg(m.total > 141000000000u + 60000000000u, "total %zu", m.total);
}
END_TEST

/* A batch whose products overflow size_t is refused, the output untouched. */
START_TEST(overflow_is_refused) {
  const int widths[] = {784, 65536, 10};
  const size_t batches[] = {SIZE_MAX, SIZE_MAX / 2, SIZE_MAX / 65536,
                            SIZE_MAX / (65536 * 8) + 1};
  mlp_layout layout;
  layout_of(&layout, widths, 2);
  for (size_t i = 0; i < sizeof batches / sizeof batches[0]; i++) {
    mlp_memory m;
    memset(&m, 0xab, sizeof m);
    ck_assert_msg(mlp_memory_need(&m, &layout, batches[i], LT_DTYPE_F32,
                                  LT_ACTIVATION_RELU, 0, 0) == -1,
                  "batch %zu not refused", batches[i]);
    ck_assert_uint_eq(m.total, (size_t)0xabababababababab);
  }
  mlp_memory m;
  ck_assert_int_eq(mlp_memory_need(&m, &layout, 1, LT_DTYPE_F32,
                                   LT_ACTIVATION_RELU, 0, SIZE_MAX),
                   -1);
}
END_TEST

START_TEST(the_message_gives_both_numbers_and_the_flags) {
  const size_t gib = (size_t)1 << 30;
  mlp_memory need = {.slabs = gib, .activations = gib / 2};
  need.total = need.slabs + need.activations;
  char text[512];
  mlp_memory_message(text, sizeof text, &need, gib, 80 * gib, 65536);
  const char *wanted[] = {"not enough GPU memory",
                          "a batch of 65536 need 1.5 GiB",
                          "momentum 1.0 GiB",
                          "for the batch 0.5 GiB",
                          "1.0 GiB free of 80.0 GiB",
                          "--batch",
                          "--hidden"};
  for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++)
    ck_assert_msg(strstr(text, wanted[i]) != NULL, "'%s' not in '%s'",
                  wanted[i], text);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("mlp_memory");
  TCase *tc = tcase_create("mlp_memory");
  tcase_add_loop_test(tc, counts_what_mlp_create_allocates, 0,
                      (int)(sizeof cases / sizeof cases[0]));
  tcase_add_test(tc, the_issue_network_exceeds_an_h200);
  tcase_add_test(tc, overflow_is_refused);
  tcase_add_test(tc, the_message_gives_both_numbers_and_the_flags);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
