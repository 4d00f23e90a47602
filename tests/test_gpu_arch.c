/* test_gpu_arch.c: the capability rules of gpu/gpu_arch.h, without a GPU:
 * which code an architecture list holds for a capability, the driver
 * against the runtime, the refusal messages (GPU, capability, list, the
 * rebuild command), what each precision needs, the message of a precision
 * cuBLASLt refuses, when a kernel may start early, and which epilogues the
 * start-up probe asks cuBLASLt about (lt/lt_probe.h): exactly the calls a
 * run makes (training with ReLU or GELU: its whole step; inference: the
 * forwards only), the same set the layer's calls (the lt_shape.h builders,
 * as layers/linear.c makes them) give, and a probe call for each member
 * that keeps cuBLASLt's rules. Table-driven. */
#include <check.h>
#include <string.h>

#include "gpu/gpu_arch.h"
#include "lt/lt_probe.h"
#include "tests/test_util.h"

#define DEFAULT_LIST                                                           \
  "75-real;80-real;86-real;89-real;90-real;100-real;120-real;90-virtual"

typedef struct code_case {
  const char *list;
  int capability;
  gpu_code expected;
} code_case;

static const code_case code_cases[] = {
    /* the new default covers every supported GPU with SASS */
    {DEFAULT_LIST, 75, GPU_CODE_SASS},
    {DEFAULT_LIST, 86, GPU_CODE_SASS},
    {DEFAULT_LIST, 89, GPU_CODE_SASS},
    {DEFAULT_LIST, 90, GPU_CODE_SASS},
    {DEFAULT_LIST, 120, GPU_CODE_SASS},
    {DEFAULT_LIST, 103, GPU_CODE_SASS}, /* 10.3 runs sm_100 SASS */
    {DEFAULT_LIST, 110, GPU_CODE_PTX},  /* no SASS: compute_90 JIT */
    /* the old default: sm_90 SASS and compute_90 PTX ("90") */
    {"90", 90, GPU_CODE_SASS},
    {"90", 100, GPU_CODE_PTX},
    {"90", 89, GPU_CODE_NONE},
    {"90", 75, GPU_CODE_NONE},
    /* SASS runs on its major at the same or a higher minor only */
    {"80-real", 86, GPU_CODE_SASS},
    {"86-real", 80, GPU_CODE_NONE},
    {"80-real", 90, GPU_CODE_NONE},
    {"100-real", 90, GPU_CODE_NONE},
    {"80-virtual", 90, GPU_CODE_PTX},
    {"90-virtual", 80, GPU_CODE_NONE},
    /* arch-specific variants run on exactly their GPU */
    {"90a-real", 90, GPU_CODE_SASS},
    {"90a-real", 100, GPU_CODE_NONE},
    /* separators: CMake's ';', the compile definition's blanks, commas */
    {"75-real 90-real", 75, GPU_CODE_SASS},
    {"75-real,90-virtual", 100, GPU_CODE_PTX},
    /* lists that do not say */
    {"native", 90, GPU_CODE_UNKNOWN},
    {"all-major", 90, GPU_CODE_UNKNOWN},
    {"", 90, GPU_CODE_NONE},
};

START_TEST(code_for_capability) {
  const code_case *c = &code_cases[_i];
  ck_assert_msg(gpu_arch_code_for(c->list, c->capability) == c->expected,
                "list '%s' on %d: expected %d, found %d", c->list,
                c->capability, c->expected,
                gpu_arch_code_for(c->list, c->capability));
}
END_TEST

typedef struct driver_case {
  int driver, runtime;
  gpu_code code;
  gpu_arch_verdict expected;
  const char *says; /* a part of the message, or NULL for none */
} driver_case;

static const driver_case driver_cases[] = {
    {13000, 13000, GPU_CODE_SASS, GPU_ARCH_OK, NULL},
    {13020, 13000, GPU_CODE_PTX, GPU_ARCH_OK, NULL},
    /* minor-version compatibility: an older 13.x driver runs 13.2's SASS */
    {13000, 13020, GPU_CODE_SASS, GPU_ARCH_OK, NULL},
    /* ... but cannot JIT its PTX */
    {13000, 13020, GPU_CODE_PTX, GPU_ARCH_OLD_DRIVER, "cannot compile"},
    /* ... and no driver number is known for 13.2 itself */
    {13000, 13020, GPU_CODE_PTX, GPU_ARCH_OLD_DRIVER,
     "update the driver (one for CUDA 13.2 or newer)"},
    {12040, 13000, GPU_CODE_SASS, GPU_ARCH_OLD_DRIVER,
     "supports CUDA up to 12.4, but this build needs CUDA 13.0"},
    {12080, 13000, GPU_CODE_UNKNOWN, GPU_ARCH_OLD_DRIVER,
     "update the driver (CUDA 13.x needs driver 580 or newer on Linux)"},
    /* the number follows the runtime's major, not a fixed 13 */
    {11080, 12040, GPU_CODE_SASS, GPU_ARCH_OLD_DRIVER,
     "CUDA 12.x needs driver 525.60.13 or newer on Linux"},
    {13000, 14010, GPU_CODE_SASS, GPU_ARCH_OLD_DRIVER,
     "update the driver (one for CUDA 14.1 or newer)"},
    {0, 13000, GPU_CODE_UNKNOWN, GPU_ARCH_NO_DRIVER, "no NVIDIA driver"},
};

START_TEST(driver_against_runtime) {
  const driver_case *c = &driver_cases[_i];
  char msg[1024];
  gpu_arch_verdict v =
      gpu_driver_decide(msg, sizeof msg, c->driver, c->runtime, c->code);
  ck_assert_msg(v == c->expected, "driver %d runtime %d: expected %d, found %d",
                c->driver, c->runtime, c->expected, v);
  if (c->says)
    ck_assert_msg(strstr(msg, c->says), "expected '%s' in: %s", c->says, msg);
  else
    ck_assert_str_eq(msg, "");
  /* the project needs CUDA 13: never advise an older toolkit, and name a
   * driver number only where the table holds the runtime's major */
  ck_assert_msg(!strstr(msg, "toolkit"), "%s", msg);
  if (c->runtime / 1000 != 13) ck_assert_msg(!strstr(msg, "580"), "%s", msg);
}
END_TEST

static gpu_arch_facts facts(const char *name, int capability, const char *list,
                            int kernel_image) {
  gpu_arch_facts f = {.device_name = name,
                      .capability = capability,
                      .driver_version = 13000,
                      .runtime_version = 13000,
                      .arch_list = list,
                      .kernel_image = kernel_image};
  return f;
}

START_TEST(no_code_names_gpu_list_and_rebuild) {
  char msg[1024];
  gpu_arch_facts f = facts("NVIDIA L4", 89, "90-real 90-virtual", 0);
  ck_assert_int_eq(gpu_arch_decide(msg, sizeof msg, &f), GPU_ARCH_NO_CODE);
  const char *parts[] = {
      "NVIDIA L4", "compute capability 8.9", "'90-real 90-virtual'",
      "cmake -S . -B build -DCMAKE_CUDA_ARCHITECTURES=89-real "
      "&& cmake --build build",
      "scripts/train.sh"};
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
    ck_assert_msg(strstr(msg, parts[i]), "expected '%s' in: %s", parts[i], msg);
}
END_TEST

START_TEST(probe_decides_over_list) {
  char msg[1024];
  /* the list says no, but the real probe found an image: run */
  gpu_arch_facts f = facts("NVIDIA H200", 90, "native", 1);
  ck_assert_int_eq(gpu_arch_decide(msg, sizeof msg, &f), GPU_ARCH_OK);
  ck_assert_str_eq(msg, "");
  /* the list says yes, the probe says no image: refuse */
  f = facts("NVIDIA H200", 90, "90-real", 0);
  ck_assert_int_eq(gpu_arch_decide(msg, sizeof msg, &f), GPU_ARCH_NO_CODE);
  /* not probed: the list decides ("100 only" on the H200) */
  f = facts("NVIDIA H200", 90, "100-real 100-virtual", -1);
  ck_assert_int_eq(gpu_arch_decide(msg, sizeof msg, &f), GPU_ARCH_NO_CODE);
  ck_assert_ptr_nonnull(strstr(msg, "-DCMAKE_CUDA_ARCHITECTURES=90-real"));
  f = facts("NVIDIA H200", 90, DEFAULT_LIST, -1);
  ck_assert_int_eq(gpu_arch_decide(msg, sizeof msg, &f), GPU_ARCH_OK);
  /* PTX only, driver 13.0 under runtime 13.2: the list alone refuses, but
   * a kernel the probe loaded was compiled by this driver: run */
  f = facts("NVIDIA H200", 90, "90-virtual", -1);
  f.runtime_version = 13020;
  ck_assert_int_eq(gpu_arch_decide(msg, sizeof msg, &f), GPU_ARCH_OLD_DRIVER);
  f.kernel_image = 1;
  ck_assert_int_eq(gpu_arch_decide(msg, sizeof msg, &f), GPU_ARCH_OK);
  ck_assert_str_eq(msg, "");
}
END_TEST

START_TEST(driver_first_then_age_then_code) {
  char msg[1024];
  gpu_arch_facts f = facts("Tesla P100", 60, "90", 0);
  f.driver_version = 12020;
  ck_assert_int_eq(gpu_arch_decide(msg, sizeof msg, &f), GPU_ARCH_OLD_DRIVER);
  f.driver_version = 13000;
  ck_assert_int_eq(gpu_arch_decide(msg, sizeof msg, &f), GPU_ARCH_OLD_GPU);
  ck_assert_msg(strstr(msg, "Tesla P100") && strstr(msg, "6.0") &&
                    strstr(msg, "7.5 or newer"),
                "%s", msg);
}
END_TEST

typedef struct precision_case {
  int capability;
  gpu_precision precision;
  int expected;
  const char *says;
} precision_case;

static const precision_case precision_cases[] = {
    {90, GPU_PRECISION_FP32, 0, NULL},
    {90, GPU_PRECISION_TF32, 0, NULL},
    {90, GPU_PRECISION_BF16, 0, NULL},
    {80, GPU_PRECISION_BF16, 0, NULL},
    {86, GPU_PRECISION_TF32, 0, NULL},
    {75, GPU_PRECISION_FP16, 0, NULL},
    {75, GPU_PRECISION_FP32, 0, NULL},
    {75, GPU_PRECISION_TF32, 1, "no TF32 tensor cores (they need 8.0)"},
    {75, GPU_PRECISION_BF16, 1, "no BF16 tensor cores (they need 8.0)"},
    {70, GPU_PRECISION_FP16, -1, "needs 7.5 or newer"},
    {61, GPU_PRECISION_FP32, -1, "compute capability 6.1"},
};

START_TEST(precision_needs) {
  const precision_case *c = &precision_cases[_i];
  char msg[512];
  int r = gpu_precision_check(msg, sizeof msg, "Some GPU", c->capability,
                              c->precision);
  ck_assert_msg(r == c->expected, "%s on %d: expected %d, found %d (%s)",
                gpu_precision_name(c->precision), c->capability, c->expected, r,
                msg);
  if (!c->says) {
    ck_assert_str_eq(msg, "");
    return;
  }
  ck_assert_msg(strstr(msg, c->says) && strstr(msg, "Some GPU") &&
                    strstr(msg, gpu_precision_name(c->precision)),
                "expected '%s', the GPU and the precision in: %s", c->says,
                msg);
  ck_assert_ptr_null(strchr(msg, '\n')); /* one line */
}
END_TEST

START_TEST(probe_refusal_names_everything) {
  char msg[512];
  gpu_precision_refusal(msg, sizeof msg, "Tesla T4", 75, GPU_PRECISION_BF16,
                        "DRELU_BGRAD", "CUBLAS_STATUS_NOT_SUPPORTED");
  const char *parts[] = {"--precision bf16", "Tesla T4",
                         "compute capability 7.5", "DRELU_BGRAD",
                         "CUBLAS_STATUS_NOT_SUPPORTED"};
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
    ck_assert_msg(strstr(msg, parts[i]), "expected '%s' in: %s", parts[i], msg);
  ck_assert_ptr_null(strchr(msg, '\n')); /* one line */
}
END_TEST

START_TEST(early_start_needs_sm90_code) {
  static const int cases[][3] = {
      /* binaryVersion, ptxVersion, allowed */
      {90, 90, 1}, {100, 90, 1}, {100, 100, 1}, {120, 90, 1},
      {90, 80, 0}, /* compute_80 PTX JIT-compiled on Hopper: no wait */
      {80, 80, 0}, {89, 89, 0},  {75, 75, 0},   {0, 0, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    ck_assert_msg(
        gpu_early_start_allowed(cases[i][0], cases[i][1]) == cases[i][2],
        "binary %d ptx %d: expected %d", cases[i][0], cases[i][1], cases[i][2]);
}
END_TEST

#define BIT(e) LT_EPILOGUE_BIT(LT_EPILOGUE_##e)

typedef struct set_case {
  lt_activation activation;
  int training;
  lt_run_ways ways;
  lt_epilogue_set expected;
} set_case;

static const set_case set_cases[] = {
    {LT_ACTIVATION_RELU, 1, LT_RUN_FUSED,
     BIT(BIAS) | BIT(RELU_AUX_BIAS) | BIT(DRELU_BGRAD) | BIT(BGRADB) |
         BIT(DEFAULT)},
    {LT_ACTIVATION_GELU, 1, LT_RUN_FUSED,
     BIT(BIAS) | BIT(GELU_AUX_BIAS) | BIT(DGELU_BGRAD) | BIT(BGRADB) |
         BIT(DEFAULT)},
    /* mnist_predict, mnist_train --epochs 0: no backward call is made */
    {LT_ACTIVATION_RELU, 0, LT_RUN_FUSED, BIT(BIAS) | BIT(RELU_AUX_BIAS)},
    {LT_ACTIVATION_GELU, 0, LT_RUN_FUSED, BIT(BIAS) | BIT(GELU_AUX_BIAS)},
    /* unfused: every call is a plain GEMM and the project's kernels */
    {LT_ACTIVATION_RELU, 1, LT_RUN_UNFUSED, BIT(DEFAULT)},
    {LT_ACTIVATION_GELU, 0, LT_RUN_UNFUSED, BIT(DEFAULT)},
    /* auto times both ways: inference adds DEFAULT to the forwards */
    {LT_ACTIVATION_RELU, 0, LT_RUN_BOTH,
     BIT(BIAS) | BIT(RELU_AUX_BIAS) | BIT(DEFAULT)},
    {LT_ACTIVATION_GELU, 1, LT_RUN_BOTH,
     BIT(BIAS) | BIT(GELU_AUX_BIAS) | BIT(DGELU_BGRAD) | BIT(BGRADB) |
         BIT(DEFAULT)},
};

/* The epilogues of one step's calls as layers/linear.c builds them: the
 * hidden and the output forward; with training, the data gradient and
 * both weight gradients (BGRADB for the output layer). */
static lt_epilogue_set step_epilogues(lt_activation activation, int training) {
  lt_shape calls[5];
  int count = 0;
  calls[count++] = lt_shape_forward(784, 100, 96, 1);
  calls[count++] = lt_shape_forward(100, 10, 96, 0);
  if (training) {
    calls[count++] = lt_shape_backward_data(100, 10, 96);
    calls[count++] = lt_shape_backward_weights(100, 10, 96, 1);
    calls[count++] = lt_shape_backward_weights(784, 100, 96, 0);
  }
  lt_epilogue_set set = 0;
  for (int i = 0; i < count; i++)
    set |= LT_EPILOGUE_BIT(lt_shape_activation(calls[i], activation).epilogue);
  return set;
}

START_TEST(run_probes_only_its_calls) {
  const set_case *c = &set_cases[_i];
  lt_epilogue_set set = lt_run_epilogues(c->activation, c->training, c->ways);
  ck_assert_msg(set == c->expected,
                "%s training %d ways %d: 0x%x, expected 0x%x",
                lt_activation_name(c->activation), c->training, (int)c->ways,
                set, c->expected);
  /* fused: exactly the epilogues of one step's calls */
  if (c->ways == LT_RUN_FUSED)
    ck_assert_uint_eq(set, step_epilogues(c->activation, c->training));
  /* nothing outside lt_epilogue (an epilogue added later is not in any
   * set until a run calls it and this table says so) */
  ck_assert_uint_eq(set & ~(LT_EPILOGUE_BIT(LT_EPILOGUE_COUNT) - 1u), 0);
}
END_TEST

START_TEST(every_probed_call_keeps_the_rules) {
  const lt_dtype types[] = {LT_DTYPE_F32, LT_DTYPE_BF16, LT_DTYPE_F16};
  for (int c = 0; c < (int)(sizeof set_cases / sizeof set_cases[0]); c++)
    for (int e = 0; e < LT_EPILOGUE_COUNT; e++) {
      if (!(set_cases[c].expected & LT_EPILOGUE_BIT(e))) continue;
      for (int t = 0; t < 3; t++) {
        lt_shape s;
        char why[256];
        ck_assert_int_eq(lt_probe_shape(&s, (lt_epilogue)e, types[t]), 0);
        ck_assert_int_eq(s.epilogue, e);
        ck_assert_int_eq(s.type, types[t]);
        ck_assert_msg(lt_shape_check(&s, why, sizeof why) == 0, "%s: %s",
                      lt_epilogue_name((lt_epilogue)e), why);
      }
    }
}
END_TEST

START_TEST(no_probe_call_for_unknown_epilogue) {
  lt_shape s;
  memset(&s, 0x5a, sizeof s);
  lt_shape before = s;
  ck_assert_int_eq(lt_probe_shape(&s, LT_EPILOGUE_COUNT, LT_DTYPE_F32), -1);
  ck_assert_int_eq(memcmp(&s, &before, sizeof s), 0);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("gpu_arch");
  TCase *tc = tcase_create("rules");
  tcase_add_loop_test(tc, code_for_capability, 0,
                      sizeof code_cases / sizeof code_cases[0]);
  tcase_add_loop_test(tc, driver_against_runtime, 0,
                      sizeof driver_cases / sizeof driver_cases[0]);
  tcase_add_test(tc, no_code_names_gpu_list_and_rebuild);
  tcase_add_test(tc, probe_decides_over_list);
  tcase_add_test(tc, driver_first_then_age_then_code);
  tcase_add_loop_test(tc, precision_needs, 0,
                      sizeof precision_cases / sizeof precision_cases[0]);
  tcase_add_test(tc, probe_refusal_names_everything);
  tcase_add_test(tc, early_start_needs_sm90_code);
  tcase_add_loop_test(tc, run_probes_only_its_calls, 0,
                      sizeof set_cases / sizeof set_cases[0]);
  tcase_add_test(tc, every_probed_call_keeps_the_rules);
  tcase_add_test(tc, no_probe_call_for_unknown_epilogue);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return test_run_suite(suite(), 0);
}
