/* test_chain_options.c: the issue-20 A/B switches as the command line
 * gives them: --chain (gpu_chain_parse, gpu_chain_format) on mnist_train
 * and mnist_bench, --pad-to on both, mnist_bench --network and the rows it
 * keeps. Valid and invalid input, table-driven. Plain C, no GPU. */
#include <check.h>
#include <string.h>

#include "app/bench_options.h"
#include "app/train_options.h"
#include "bench/bench_rows.h"
#include "gpu/gpu_options.h"
#include "tests/test_util.h"

typedef struct chain_case {
  const char *text;
  unsigned bits;
  const char *formatted; /* gpu_chain_format of bits */
} chain_case;

static const chain_case good[] = {
    {"none", GPU_CHAIN_NONE, "none"},
    {"all", GPU_CHAIN_ALL, "side-partials,sgd-lane,priorities,trigger"},
    {"side-partials", GPU_CHAIN_SIDE_PARTIALS, "side-partials"},
    {"sgd-lane", GPU_CHAIN_SGD_LANE, "sgd-lane"},
    {"priorities", GPU_CHAIN_PRIORITIES, "priorities"},
    {"trigger", GPU_CHAIN_TRIGGER, "trigger"},
    /* Any order in, the fixed order out. */
    {"trigger,side-partials", GPU_CHAIN_TRIGGER | GPU_CHAIN_SIDE_PARTIALS,
     "side-partials,trigger"},
    {"side-partials,sgd-lane,priorities,trigger", GPU_CHAIN_ALL,
     "side-partials,sgd-lane,priorities,trigger"},
};

START_TEST(chain_values_parse) {
  const chain_case *c = &good[_i];
  unsigned bits = 12345;
  char err[256] = "", text[128];
  ck_assert_msg(gpu_chain_parse(&bits, c->text, err, sizeof err) == 0,
                "'%s': %s", c->text, err);
  ck_assert_uint_eq(bits, c->bits);
  gpu_chain_format(text, sizeof text, bits);
  ck_assert_str_eq(text, c->formatted);
  /* The formatted list parses back to the same bits. */
  unsigned again = 0;
  ck_assert_int_eq(gpu_chain_parse(&again, text, err, sizeof err), 0);
  ck_assert_uint_eq(again, bits);
}
END_TEST

static const char *const bad_chains[][2] = {
    {"", "(an empty name)"},
    {"fast", "found \"fast\""},
    {"side-partials,", "(an empty name)"},
    {",trigger", "(an empty name)"},
    {"trigger,trigger", "\"trigger\" twice"},
    {"None", "found \"None\""},
    {"none,trigger", "found \"none\""},
    {"side-partials sgd-lane", "found \"side-partials sgd-lane\""},
    {"sgd", "found \"sgd\""},
};

START_TEST(bad_chain_values_are_named) {
  unsigned bits = 7;
  char err[256] = "";
  ck_assert_int_eq(gpu_chain_parse(&bits, bad_chains[_i][0], err, sizeof err),
                   -1);
  ck_assert_uint_eq(bits, 7); /* untouched */
  ck_assert_msg(strstr(err, bad_chains[_i][1]), "'%s': '%s' lacks '%s'",
                bad_chains[_i][0], err, bad_chains[_i][1]);
  ck_assert_msg(strstr(err, "side-partials, sgd-lane, priorities, trigger"),
                "'%s' does not list the names", err);
}
END_TEST

START_TEST(format_truncates_safely) {
  char small[8] = "xxxxxxx";
  gpu_chain_format(small, sizeof small, GPU_CHAIN_ALL);
  ck_assert_uint_le(strlen(small), sizeof small - 1);
  ck_assert_str_eq(small, "side-pa");
}
END_TEST

START_TEST(train_takes_chain_and_pad_to) {
  train_options o;
  char err[256] = "";
  char *none[] = {"mnist_train"};
  ck_assert_int_eq(train_options_parse(&o, 1, none, err, sizeof err), 0);
  ck_assert_uint_eq(o.gpu.chain, GPU_CHAIN_NONE); /* the default */
  ck_assert_int_eq(o.config.pad_units, 0);
  char *argv[] = {"mnist_train", "--chain", "sgd-lane,trigger", "--pad-to",
                  "16"};
  ck_assert_msg(train_options_parse(&o, 5, argv, err, sizeof err) == 0, "%s",
                err);
  ck_assert_uint_eq(o.gpu.chain, GPU_CHAIN_SGD_LANE | GPU_CHAIN_TRIGGER);
  ck_assert_int_eq(o.config.pad_units, 1); /* --pad-to pads */
  ck_assert_int_eq(o.config.pad_multiple, 16);
  char *both[] = {"mnist_train", "--pad-units", "--pad-to=32"};
  ck_assert_int_eq(train_options_parse(&o, 3, both, err, sizeof err), 0);
  ck_assert_int_eq(o.config.pad_multiple, 32);
  const char *bad[][3] = {
      {"--chain", "fast", "--chain: expected none, all, or"},
      {"--chain", "", "--chain"},
      {"--pad-to", "12", "--pad-to: expected '8', '16' or '32'"},
      {"--pad-to", "64", "--pad-to"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char *args[3] = {"mnist_train", (char *)bad[i][0], (char *)bad[i][1]};
    ck_assert_int_eq(train_options_parse(&o, 3, args, err, sizeof err), -1);
    ck_assert_msg(strstr(err, bad[i][2]), "case %zu: '%s' lacks '%s'", i, err,
                  bad[i][2]);
  }
}
END_TEST

START_TEST(bench_takes_chain_network_pad_to) {
  bench_options o;
  char err[256] = "";
  char *none[] = {"mnist_bench"};
  ck_assert_int_eq(bench_options_parse(&o, 1, none, err, sizeof err), 0);
  ck_assert_uint_eq(o.chain, GPU_CHAIN_NONE);
  ck_assert_int_eq(o.network, 0);
  ck_assert_int_eq(o.pad_multiple, 0);
  char *argv[] = {"mnist_bench", "--chain",  "priorities", "--network",
                  "mid",         "--pad-to", "32"};
  ck_assert_msg(bench_options_parse(&o, 7, argv, err, sizeof err) == 0, "%s",
                err);
  ck_assert_uint_eq(o.chain, GPU_CHAIN_PRIORITIES);
  ck_assert_int_eq(o.network, 2); /* bench_nets()[1] */
  ck_assert_int_eq(o.pad_multiple, 32);
  const char *bad[][3] = {
      {"--network", "small", "--network: expected 'seed', 'mid' or 'big'"},
      {"--chain", "all,trigger", "--chain"},
      {"--pad-to", "8x", "--pad-to"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char *args[3] = {"mnist_bench", (char *)bad[i][0], (char *)bad[i][1]};
    ck_assert_int_eq(bench_options_parse(&o, 3, args, err, sizeof err), -1);
    ck_assert_msg(strstr(err, bad[i][2]), "case %zu: '%s' lacks '%s'", i, err,
                  bad[i][2]);
  }
}
END_TEST

/* Combinations that would run and write nothing asked for are refused. */
START_TEST(bench_refuses_combinations_that_do_nothing) {
  const struct {
    const char *args[4];
    const char *words;
  } cases[] = {
      {{"--trace-step", "--network", "big", NULL}, "batch <= 256"},
      {{"--trace-step", "--json", "x.json", NULL}, "--json with --trace-step"},
      {{"--profile-step", "--json", "x.json", NULL},
       "--json with --profile-step"},
      {{"--alternatives", "--json", "x.json", NULL},
       "--json with --alternatives"},
      {{"--alternatives", "--trace-step", NULL}, "at most one of them"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *argv[5] = {"mnist_bench"};
    int argc = 1;
    for (int a = 0; a < 4 && cases[i].args[a]; a++)
      argv[argc++] = (char *)cases[i].args[a];
    bench_options o;
    char err[512] = "";
    ck_assert_int_eq(bench_options_parse(&o, argc, argv, err, sizeof err), -1);
    ck_assert_msg(strstr(err, cases[i].words), "case %zu: %s", i, err);
  }
  char *fine[] = {"mnist_bench", "--trace-step", "--network", "mid"};
  bench_options o;
  char err[512] = "";
  ck_assert_int_eq(bench_options_parse(&o, 4, fine, err, sizeof err), 0);
  char *alternatives[] = {"mnist_bench", "--alternatives", "--precision",
                          "fp16"};
  ck_assert_int_eq(bench_options_parse(&o, 4, alternatives, err, sizeof err),
                   0);
  ck_assert(o.alternatives == 1 && o.trace == 0 && o.profile == 0);
}
END_TEST

/* --network keeps exactly that network's rows; 0 keeps all. */
START_TEST(network_selects_rows) {
  bench_row rows[BENCH_MAX_ROWS];
  int count = bench_rows_build(rows), nets = 0;
  const bench_net *net = bench_nets(&nets);
  ck_assert_int_eq(bench_network_parse("seed"), 0);
  ck_assert_int_eq(net[0].hidden[0], 100);
  ck_assert_int_eq(bench_network_parse("big"), 2);
  ck_assert_int_eq(net[2].hidden[0], 4096);
  ck_assert_int_eq(bench_network_parse("huge"), -1);
  for (int only = 0; only <= nets; only++) {
    bench_selection sel = {
        .only_network = only, .precision = -1, .activation = -1};
    int kept = 0;
    for (int r = 0; r < count; r++) {
      int want = only == 0 || rows[r].net == only - 1;
      ck_assert_int_eq(bench_row_selected(&rows[r], &sel), want);
      kept += want;
    }
    ck_assert_int_eq(kept, only == 0 ? count : count / nets);
  }
}
END_TEST

int main(void) {
  Suite *suite = suite_create("chain_options");
  TCase *tc = tcase_create("parse");
  tcase_add_loop_test(tc, chain_values_parse, 0,
                      (int)(sizeof good / sizeof good[0]));
  tcase_add_loop_test(tc, bad_chain_values_are_named, 0,
                      (int)(sizeof bad_chains / sizeof bad_chains[0]));
  tcase_add_test(tc, format_truncates_safely);
  tcase_add_test(tc, train_takes_chain_and_pad_to);
  tcase_add_test(tc, bench_takes_chain_network_pad_to);
  tcase_add_test(tc, bench_refuses_combinations_that_do_nothing);
  tcase_add_test(tc, network_selects_rows);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
