/* test_lt_alternatives.c: the alternative epilogues DRELU, DGELU and
 * BGRADA on the CPU side (docs/backprop.md section 11): their table entries
 * (names, vectors, aux), their shape rules and refusals, the split way's
 * shape, and the oracle's identities the GPU paths rely on: DRELU / DGELU
 * give DRELU_BGRAD / DGELU_BGRAD's D, whose row sums are their bias
 * gradient (the split way), and BGRADA on the swapped weight product gives
 * BGRADB's bias gradient and the transposed dW. Plain C: runs anywhere. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "layers/oracle.h"
#include "tests/test_util.h"

/* Each new epilogue's entry in every table of lt_shape.h. */
START_TEST(alternatives_in_every_table) {
  const struct {
    lt_epilogue e;
    const char *name;
    int bias_grad, aux, mask;
  } rows[] = {{LT_EPILOGUE_DRELU, "DRELU", 0, 1, 1},
              {LT_EPILOGUE_DGELU, "DGELU", 0, 1, 0},
              {LT_EPILOGUE_BGRADA, "BGRADA", 1, 0, 0}};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    lt_epilogue e = rows[i].e;
    ck_assert_str_eq(lt_epilogue_name(e), rows[i].name);
    ck_assert_int_eq(lt_epilogue_reads_bias(e), 0);
    ck_assert_int_eq(lt_epilogue_writes_bias_grad(e), rows[i].bias_grad);
    ck_assert_int_eq(lt_epilogue_uses_aux(e), rows[i].aux);
    ck_assert_int_eq(lt_epilogue_aux_is_mask(e), rows[i].mask);
    ck_assert_int_eq(lt_epilogue_is_alternative(e), 1);
    ck_assert_int_eq(lt_epilogue_has_split(e), 0);
  }
  int alternatives = 0;
  for (int e = 0; e < LT_EPILOGUE_COUNT; e++) {
    ck_assert_str_ne(lt_epilogue_name((lt_epilogue)e), "(unknown epilogue)");
    alternatives += lt_epilogue_is_alternative((lt_epilogue)e);
  }
  ck_assert_int_eq(alternatives, 3);
  ck_assert(lt_epilogue_has_split(LT_EPILOGUE_DRELU_BGRAD) &&
            lt_epilogue_has_split(LT_EPILOGUE_DGELU_BGRAD));
}
END_TEST

/* The split way's GEMM keeps the shape and aux_ld; the rules refuse what
 * cuBLASLt would, naming the rule. */
START_TEST(alternative_shapes_and_refusals) {
  char why[256];
  lt_shape data = lt_shape_backward_data(129, 100, 96);
  lt_shape drelu = lt_shape_split(data);
  ck_assert_int_eq(drelu.epilogue, LT_EPILOGUE_DRELU);
  ck_assert(drelu.aux_ld == data.aux_ld && drelu.m == 129 && drelu.k == 100);
  lt_shape dgelu =
      lt_shape_split(lt_shape_activation(data, LT_ACTIVATION_GELU));
  ck_assert(dgelu.epilogue == LT_EPILOGUE_DGELU && dgelu.aux_ld == lt_ld(129));
  lt_shape weights = lt_shape_backward_weights(129, 100, 96, 1);
  ck_assert_int_eq(lt_shape_split(weights).epilogue, LT_EPILOGUE_BGRADB);
  /* BGRADA on the swapped product: m = out, transa = N, transb = T. */
  lt_shape bgrada = lt_shape_backward_weights(100, 129, 96, 1);
  bgrada.epilogue = LT_EPILOGUE_BGRADA;
  ck_assert_int_eq(lt_bias_grad_length(&bgrada), 100);
  lt_shape good[3] = {drelu, dgelu, bgrada};
  for (int i = 0; i < 3; i++)
    ck_assert_msg(lt_shape_check(&good[i], why, sizeof why) == 0, "%s", why);
  /* 8 x 8 x 8 dense calls, each breaking one rule. */
  const struct {
    lt_epilogue e;
    int transa, m, aux_ld;
    const char *words;
  } bad[] = {
      {LT_EPILOGUE_BGRADA, 1, 8, 0, "BGRADA sums op(A) and needs transa = N"},
      {LT_EPILOGUE_DRELU, 0, 200, 128, "multiple of 128 bits and >= m = 200"},
      {LT_EPILOGUE_DGELU, 0, 8, 4, "multiple of 8 elements and >= m = 8"},
      {LT_EPILOGUE_BGRADA, 0, 8, 128, "BGRADA has no aux"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    lt_shape s = {.m = bad[i].m,
                  .n = 8,
                  .k = 8,
                  .transa = bad[i].transa,
                  .lda = bad[i].m,
                  .ldb = 8,
                  .ldd = bad[i].m,
                  .epilogue = bad[i].e,
                  .aux_ld = bad[i].aux_ld};
    ck_assert_int_eq(lt_shape_check(&s, why, sizeof why), -1);
    ck_assert_msg(strstr(why, bad[i].words), "case %zu: '%s' lacks '%s'", i,
                  why, bad[i].words);
  }
}
END_TEST

static double *random_doubles(test_rng *rng, size_t count) {
  double *x = malloc(count * sizeof(double));
  for (size_t i = 0; i < count; i++)
    x[i] = test_rng_uniform(rng, -3, 3);
  return x;
}

/* The oracle: DRELU / DGELU (_i = 0 / 1) give the _BGRAD call's D, and the
 * row sums of that D are its bias gradient, bit for bit (the same sums in
 * the same order): what the split way computes. */
START_TEST(split_way_is_the_fused_call) {
  enum { IN = 131, OUT = 7, N = 33 };
  test_rng rng;
  test_rng_init(&rng, test_seed("lt_alternatives") + (uint64_t)_i);
  lt_shape fused = lt_shape_activation(lt_shape_backward_data(IN, OUT, N),
                                       (lt_activation)_i);
  size_t d_count = (size_t)fused.ldd * N;
  double *a = random_doubles(&rng, (size_t)fused.lda * OUT);
  double *b = random_doubles(&rng, (size_t)fused.ldb * N);
  double *gelu = random_doubles(&rng, (size_t)lt_ld(IN) * N);
  uint8_t *mask = malloc(lt_aux_bytes(IN, N));
  for (size_t i = 0; i < lt_aux_bytes(IN, N); i++)
    mask[i] = (uint8_t)test_rng_next(&rng);
  double *want = calloc(d_count, sizeof(double));
  double *got = calloc(d_count, sizeof(double));
  double db[IN], sums[IN];
  oracle_call f = {.shape = fused,
                   .a = a,
                   .b = b,
                   .d = want,
                   .bias_grad = db,
                   .aux = mask,
                   .gelu_input = gelu};
  oracle_matmul(&f);
  oracle_call split = f;
  split.shape = lt_shape_split(fused);
  split.d = got;
  split.bias_grad = NULL;
  oracle_matmul(&split);
  ck_assert_mem_eq(got, want, d_count * sizeof(double));
  for (int i = 0; i < IN; i++) {
    sums[i] = 0.0;
    for (int j = 0; j < N; j++)
      sums[i] += got[(size_t)j * fused.ldd + i];
  }
  ck_assert_mem_eq(sums, db, sizeof db);
  free(a);
  free(b);
  free(gelu);
  free(mask);
  free(want);
  free(got);
}
END_TEST

/* BGRADA on dW (out, in) = dZ X^T gives BGRADB's db (dZ summed over the
 * batch) and the transpose of BGRADB's dWt, bit for bit. */
START_TEST(bgrada_swapped_is_bgradb) {
  enum { IN = 13, OUT = 9, N = 40 };
  test_rng rng;
  test_rng_init(&rng, test_seed("lt_alternatives") + 7);
  lt_shape bgradb = lt_shape_backward_weights(IN, OUT, N, 1);
  lt_shape bgrada = lt_shape_backward_weights(OUT, IN, N, 1);
  bgrada.epilogue = LT_EPILOGUE_BGRADA;
  double *x = random_doubles(&rng, (size_t)lt_ld(IN) * N);
  double *dz = random_doubles(&rng, (size_t)lt_ld(OUT) * N);
  double *dwt = calloc((size_t)lt_ld(IN) * OUT, sizeof(double));
  double *dw = calloc((size_t)lt_ld(OUT) * IN, sizeof(double));
  double db_b[OUT], db_a[OUT];
  oracle_call b = {
      .shape = bgradb, .a = x, .b = dz, .d = dwt, .bias_grad = db_b};
  oracle_call a = {
      .shape = bgrada, .a = dz, .b = x, .d = dw, .bias_grad = db_a};
  oracle_matmul(&b);
  oracle_matmul(&a);
  ck_assert_mem_eq(db_a, db_b, sizeof db_a);
  for (int o = 0; o < OUT; o++)
    for (int i = 0; i < IN; i++)
      ck_assert(dw[(size_t)i * lt_ld(OUT) + o] ==
                dwt[(size_t)o * lt_ld(IN) + i]);
  free(x);
  free(dz);
  free(dwt);
  free(dw);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("lt_alternatives");
  TCase *tc = tcase_create("alternatives");
  tcase_add_test(tc, alternatives_in_every_table);
  tcase_add_test(tc, alternative_shapes_and_refusals);
  tcase_add_loop_test(tc, split_way_is_the_fused_call, 0, 2);
  tcase_add_test(tc, bgrada_swapped_is_bgradb);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
