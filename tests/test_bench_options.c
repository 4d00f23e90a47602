/* test_bench_options.c: mnist_bench's flag parser: the strict numbers and
 * names of every program's parser; its modes (the timed rows,
 * --profile-step, --trace-step, --alternatives) each refuse the flags
 * they would ignore, naming the flag and the mode, and take those they
 * read (--profile-step its --network; --trace-step its --network and
 * --pad-to); the --fp8-* flags only where fp8 rows run; --alternatives
 * never under an "fp8" label on other operands. Table-driven, plain C. */
#include <check.h>
#include <string.h>

#include "app/bench_options.h"
#include "tests/test_util.h"

/* mnist_bench goes through the same parser. */
START_TEST(bench_flags_are_strict) {
  char err[256] = "";
  bench_options o;
  char *good[] = {"mnist_bench",   "--repeats",  "7",
                  "--json=x.json", "--device",   "1",
                  "--no-layers",   "--data-dir", "/d"};
  ck_assert_msg(bench_options_parse(&o, 9, good, err, sizeof err) == 0, "%s",
                err);
  ck_assert_int_eq(o.repeats, 7);
  ck_assert_str_eq(o.json_path, "x.json");
  ck_assert_int_eq(o.device, 1);
  ck_assert_int_eq(o.skip_layers, 1);
  ck_assert_int_eq(o.show_plans, 0); /* the default */
  ck_assert_str_eq(o.data_dir, "/d");
  ck_assert_int_eq(o.autotune, GPU_AUTOTUNE_EXACT); /* the default */
  ck_assert_int_eq(o.no_context_cycle, 0); /* the cycle on, by default */
  ck_assert_int_eq(o.against_off, 0);      /* not timed, by default */
  char *plans[] = {"mnist_bench", "--show-plans", "--no-context-cycle",
                   "--against-off"};
  ck_assert_int_eq(bench_options_parse(&o, 4, plans, err, sizeof err), 0);
  ck_assert_int_eq(o.show_plans, 1);
  ck_assert_int_eq(o.against_off, 1);
  ck_assert_int_eq(o.no_context_cycle, 1);
  char *fast[] = {"mnist_bench", "--autotune", "fast"};
  ck_assert_int_eq(bench_options_parse(&o, 3, fast, err, sizeof err), 0);
  ck_assert_int_eq(o.autotune, GPU_AUTOTUNE_FAST);
  const char *bad[][3] = {
      {"--repeats", "5x", "--repeats: expected a whole number from 1 to 100"},
      {"--repeats", "4294967297", "--repeats"},
      {"--repeats", "0", "--repeats"},
      {"--device", "abc", "--device: expected a whole number"},
      {"--json", "", "--json"},
      {"--fast", NULL, "unknown flag '--fast'"},
      {"--autotune", "slow", "--autotune: expected 'exact', 'fast' or 'off'"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char *argv[3] = {"mnist_bench", (char *)bad[i][0], (char *)bad[i][1]};
    int argc = bad[i][1] ? 3 : 2;
    ck_assert_int_eq(bench_options_parse(&o, argc, argv, err, sizeof err), -1);
    ck_assert_msg(strstr(err, bad[i][2]), "case %zu: '%s' lacks '%s'", i, err,
                  bad[i][2]);
  }
}
END_TEST

typedef struct mode_case {
  const char *args[6];
  const char *words; /* NULL: accepted */
} mode_case;

static const mode_case cases[] = {
    /* --profile-step: its --network is honoured, --pad-to refused. */
    {{"--profile-step", "--network", "seed"}, NULL},
    {{"--profile-step", "--pad-to", "32"},
     "--pad-to with --profile-step: expected only the flags --profile-step "
     "reads"},
    {{"--profile-step", "--repeats", "3"}, "--repeats with --profile-step"},
    {{"--profile-step", "--no-layers"}, "--no-layers with --profile-step"},
    {{"--profile-step", "--chain", "all"}, NULL},
    {{"--profile-step", "--show-plans"}, "--show-plans with --profile-step"},
    /* --trace-step: --network and --pad-to honoured. */
    {{"--trace-step", "--network", "seed", "--pad-to", "32"}, NULL},
    {{"--trace-step", "--repeats", "3"}, "--repeats with --trace-step"},
    {{"--trace-step", "--no-layers"}, "--no-layers with --trace-step"},
    {{"--trace-step", "--show-plans"}, "--show-plans with --trace-step"},
    {{"--trace-step", "--no-context-cycle"},
     "--no-context-cycle with --trace-step"},
    {{"--profile-step", "--no-context-cycle"},
     "--no-context-cycle with --profile-step"},
    /* --alternatives: one call at a time, no data. */
    {{"--alternatives", "--chain", "all"}, "--chain with --alternatives"},
    {{"--alternatives", "--network", "mid"}, "--network with --alternatives"},
    {{"--alternatives", "--pad-to", "16"}, "--pad-to with --alternatives"},
    {{"--alternatives", "--repeats", "2"}, "--repeats with --alternatives"},
    {{"--alternatives", "--no-layers"}, "--no-layers with --alternatives"},
    {{"--alternatives", "--show-plans"}, "--show-plans with --alternatives"},
    {{"--alternatives", "--data-dir", "d"}, "--data-dir with --alternatives"},
    {{"--alternatives", "--precision", "fp8"},
     "--alternatives --precision fp8: expected fp32, tf32, bf16 or fp16"},
    {{"--alternatives", "--precision", "fp16"}, NULL},
    {{"--alternatives", "--json", "x.json"}, "--json with --alternatives"},
    /* The fp8 rows' recipe: where fp8 rows run. */
    {{"--fp8-format", "e4m3"}, NULL},
    {{"--precision", "fp8", "--fp8-scaling", "current"}, NULL},
    {{"--precision", "bf16", "--fp8-format", "e4m3"},
     "expected fp8 rows (--precision fp8, or every precision in the timed "
     "rows' run), found a run in bf16"},
    {{"--profile-step", "--fp8-fast-accum", "all"}, "found a run in fp32"},
    {{"--trace-step", "--precision", "fp8", "--fp8-format", "e4m3"}, NULL},
    {{"--alternatives", "--fp8-format", "e4m3"},
     "--fp8-format with --alternatives"},
    /* --against-off: the rows'; under off, off against itself. */
    {{"--against-off", "--autotune", "fast"}, NULL},
    {{"--against-off", "--autotune", "off"}, NULL},
    {{"--trace-step", "--against-off"}, "--against-off with --trace-step"},
    {{"--alternatives", "--against-off"}, "--against-off with --alternatives"},
    /* The rows read them all. */
    {{"--repeats", "2", "--no-layers", "--pad-to", "32", "--show-plans"}, NULL},
};

START_TEST(each_mode_refuses_what_it_ignores) {
  const mode_case *c = &cases[_i];
  char *argv[7] = {"mnist_bench"};
  int argc = 1;
  for (int i = 0; i < 6 && c->args[i]; i++)
    argv[argc++] = (char *)c->args[i];
  bench_options o;
  char err[512] = "";
  int status = bench_options_parse(&o, argc, argv, err, sizeof err);
  if (!c->words) {
    ck_assert_msg(status == 0, "case %d: %s", _i, err);
    return;
  }
  ck_assert_msg(status == -1 && strstr(err, c->words),
                "case %d: '%s' lacks '%s'", _i, err, c->words);
}
END_TEST

/* What --check-flags says of --profile-step: the network it will run, no
 * padding (its steps are not padded). */
START_TEST(profile_describes_its_network) {
  char *argv[] = {"mnist_bench", "--profile-step", "--network", "seed"};
  bench_options o;
  char err[512] = "", text[1024] = "";
  ck_assert_int_eq(bench_options_parse(&o, 4, argv, err, sizeof err), 0);
  FILE *f = fmemopen(text, sizeof text, "w");
  ck_assert_ptr_nonnull(f);
  bench_options_describe(f, &o);
  fclose(f);
  ck_assert_msg(strstr(text, "networks seed") && !strstr(text, "+pad"), "%s",
                text);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("bench_options");
  TCase *tc = tcase_create("modes");
  tcase_add_test(tc, bench_flags_are_strict);
  tcase_add_loop_test(tc, each_mode_refuses_what_it_ignores, 0,
                      (int)(sizeof cases / sizeof cases[0]));
  tcase_add_test(tc, profile_describes_its_network);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
