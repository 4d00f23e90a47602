/* test_fp8_cast_check.c: the cast's requirements (layers/fp8_cast.h,
 * fp8_cast_refusal): a valid cast of each kind passes, and each rule
 * broken alone is refused with that rule named (test_fp8_cast holds
 * fp8_cast to the refusal on the GPU). Plain C: the pointers are
 * addresses only. */
#include <check.h>
#include <string.h>

#include "layers/fp8_cast.h"
#include "tests/test_util.h"

#define AT(address) ((void *)(uintptr_t)(address))

/* A delayed BF16 ReLU cast of 96 x 40 into both layouts, every pointer
 * 16-byte aligned. */
static fp8_cast_args valid_relu(void) {
  fp8_cast_args a = {.src_type = LT_DTYPE_BF16,
                     .d_src = AT(0x10000),
                     .ld_src = 104,
                     .rows = 96,
                     .cols = 40,
                     .mask = FP8_MASK_RELU,
                     .d_aux = AT(0x20000),
                     .aux_ld = 128,
                     .d_out = AT(0x30000),
                     .ld_out = 96,
                     .d_out_t = AT(0x40000),
                     .ld_out_t = 48,
                     .d_scale = AT(0x50000),
                     .d_meta = AT(0x60000),
                     .format = LT_FP8_E5M2};
  return a;
}

static void assert_refused(const fp8_cast_args *a, const char *rule, int line) {
  const char *why = fp8_cast_refusal(a);
  ck_assert_msg(why != NULL, "line %d: expected a refusal naming \"%s\"", line,
                rule);
  ck_assert_msg(strstr(why, rule) != NULL, "line %d: expected \"%s\" in \"%s\"",
                line, rule, why);
}

/* valid_relu() with the changes (a comma expression on `a`) refused,
 * naming `rule`. */
#define REFUSED(rule, ...)                                                     \
  do {                                                                         \
    fp8_cast_args a = valid_relu();                                            \
    __VA_ARGS__;                                                               \
    assert_refused(&a, rule, __LINE__);                                        \
  } while (0)

START_TEST(valid_casts_pass) {
  fp8_cast_args a = valid_relu();
  ck_assert_ptr_null(fp8_cast_refusal(&a));
  a.mask = FP8_MASK_GELU; /* z in BF16, aux_ld elements */
  a.aux_ld = 104;
  ck_assert_ptr_null(fp8_cast_refusal(&a));
  a.mask = FP8_MASK_NONE;
  a.d_aux = NULL;
  a.d_out = NULL;
  a.d_out_t = NULL;
  ck_assert_ptr_null(fp8_cast_refusal(&a));
  a.src_type = LT_DTYPE_F32; /* 4-byte values: ld 100 is 400 bytes */
  a.ld_src = 100;
  a.blocks = 3;
  ck_assert_ptr_null(fp8_cast_refusal(&a));
}
END_TEST

START_TEST(each_broken_rule_is_named) {
  REFUSED("BF16 or FP32 source", a.src_type = LT_DTYPE_F16,
          a.mask = FP8_MASK_NONE);
  REFUSED("BF16 source with a mask", a.src_type = LT_DTYPE_F32);
  /* an unpadded width */
  REFUSED("rows a multiple of 16", a.rows = 100, a.ld_src = a.ld_out = 112);
  REFUSED("cols >= 1", a.cols = 0);
  REFUSED("scaling state", a.d_meta = NULL);
  REFUSED("blocks >= 0", a.blocks = -1);
  REFUSED("16-byte columns", a.ld_src = 100); /* 200 bytes */
  REFUSED("16-byte columns", a.src_type = LT_DTYPE_F32, a.mask = FP8_MASK_NONE,
          a.ld_src = 98); /* 392 bytes */
  REFUSED("16-byte aligned source", a.d_src = AT(0x10008));
  REFUSED("16-byte aligned source", a.d_src = NULL);
  REFUSED("(ld_src)", a.ld_src = 80); /* < rows */
  REFUSED("aux_ld a multiple of 128 bits", a.aux_ld = 96);
  REFUSED("ReLU mask", a.d_aux = AT(0x20004));
  REFUSED("ReLU mask", a.d_aux = NULL);
  REFUSED("aux_ld a multiple of 8", a.mask = FP8_MASK_GELU, a.aux_ld = 100);
  REFUSED("GELU input", a.mask = FP8_MASK_GELU, a.aux_ld = 88); /* < rows */
  REFUSED("GELU input", a.mask = FP8_MASK_GELU, a.aux_ld = 104,
          a.d_aux = AT(0x20008));
  REFUSED("GELU input", a.mask = FP8_MASK_GELU, a.aux_ld = 104, a.d_aux = NULL);
  REFUSED("ld_out a multiple of 16", a.ld_out = 104);
  REFUSED("ld_out a multiple of 16, >= rows", a.ld_out = 80);
  REFUSED("an output with", a.d_out = AT(0x30008));
  REFUSED("ld_out_t a multiple of 16, >= cols", a.ld_out_t = 32); /* < 48 */
  REFUSED("ld_out_t a multiple of 16", a.ld_out_t = 56);
  REFUSED("transposed output", a.d_out_t = AT(0x40004));
}
END_TEST

int main(void) {
  Suite *suite = suite_create("fp8_cast_check");
  TCase *tc = tcase_create("fp8_cast_check");
  tcase_add_test(tc, valid_casts_pass);
  tcase_add_test(tc, each_broken_rule_is_named);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
