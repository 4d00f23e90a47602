/* test_options.c: mnist_train's flag parser (the strict parser every
 * program shares), valid and invalid input, table-driven; the rule of
 * --epochs 0; the one builder of a run's network. mnist_bench's parser:
 * test_bench_options.c. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "app/train_options.h"
#include "layers/mlp.h"
#include "tests/test_util.h"

START_TEST(defaults) {
  train_options o;
  char err[256];
  char *argv[] = {"mnist_train"};
  ck_assert_int_eq(train_options_parse(&o, 1, argv, err, sizeof err), 0);
  ck_assert_int_eq(o.config.epochs, 5);
  ck_assert_int_eq(o.config.batch, 128);
  ck_assert_int_eq(o.config.depth, 3);
  ck_assert_int_eq(o.config.widths[1], 1024);
  ck_assert_int_eq(o.config.mode, MLP_MODE_FUSED);
  ck_assert_int_eq(o.config.graphs, 1);
  ck_assert_int_eq(o.gpu.autotune, GPU_AUTOTUNE_EXACT);
  /* the program's default (the library's is off: trainer_config_defaults) */
  ck_assert_int_eq(o.config.context_cycle, 1);
  ck_assert_int_eq(trainer_config_defaults().context_cycle, 0);
  ck_assert_ptr_null(o.data_dir);
  /* One place for the defaults: the parser's are the config's. */
  trainer_config c = trainer_config_defaults();
  ck_assert_int_eq(o.config.depth, c.depth);
  for (int l = 0; l <= c.depth; l++)
    ck_assert_int_eq(o.config.widths[l], c.widths[l]);
  ck_assert(o.config.lr == c.lr && o.config.momentum == c.momentum);
  ck_assert(o.config.seed == c.seed && o.config.cosine == c.cosine);
  ck_assert(o.config.epochs == c.epochs && o.config.batch == c.batch);
}
END_TEST

START_TEST(every_flag) {
  train_options o;
  char err[256];
  char *argv[] = {"mnist_train",  "--epochs",    "3",
                  "--batch=256",  "--lr",        "0.1",
                  "--momentum",   "0",           "--hidden",
                  "100,50,25",    "--seed",      "18446744073709551615",
                  "--mode",       "unfused",     "--data-dir",
                  "/x",           "--precision", "bf16",
                  "--loss-scale", "256",         "--pad-units",
                  "--device",     "2",           "--log",
                  "l.csv",        "--quiet",     "--no-graphs",
                  "--autotune",   "fast",        "--help",
                  "--schedule",   "constant",    "--show-plans",
                  "--activation", "gelu",        "--no-context-cycle"};
  int argc = (int)(sizeof argv / sizeof argv[0]);
  ck_assert_msg(train_options_parse(&o, argc, argv, err, sizeof err) == 0, "%s",
                err);
  ck_assert_int_eq(o.config.epochs, 3);
  ck_assert_int_eq(o.config.batch, 256);
  ck_assert_float_eq(o.config.lr, 0.1f);
  ck_assert_float_eq(o.config.momentum, 0.0f);
  ck_assert_int_eq(o.config.depth, 4);
  ck_assert_int_eq(o.config.widths[3], 25);
  ck_assert_int_eq(o.config.widths[4], 10);
  ck_assert(o.config.seed == 18446744073709551615ull);
  ck_assert_int_eq(o.config.mode, MLP_MODE_UNFUSED);
  ck_assert_str_eq(o.data_dir, "/x");
  ck_assert_int_eq(o.gpu.precision, GPU_PRECISION_BF16);
  ck_assert_float_eq(o.config.loss_scale, 256.0f);
  ck_assert_int_eq(o.config.pad_units, 1);
  ck_assert_int_eq(o.config.activation, LT_ACTIVATION_GELU);
  ck_assert_int_eq(o.gpu.device, 2);
  ck_assert_str_eq(o.log_path, "l.csv");
  ck_assert_int_eq(o.quiet, 1);
  ck_assert_int_eq(o.config.graphs, 0);
  ck_assert_int_eq(o.gpu.autotune, GPU_AUTOTUNE_FAST);
  ck_assert_int_eq(o.help, 1);
  ck_assert_int_eq(o.config.cosine, 0);
  ck_assert_int_eq(o.show_plans, 1);
  ck_assert_int_eq(o.config.context_cycle, 0);
}
END_TEST

/* The context cycle: on unless --no-context-cycle, or nothing trains. */
START_TEST(context_cycle_by_default) {
  train_options o;
  char err[256];
  char *off[] = {"mnist_train", "--no-context-cycle"};
  ck_assert_msg(train_options_parse(&o, 2, off, err, sizeof err) == 0, "%s",
                err);
  ck_assert_int_eq(o.config.context_cycle, 0);
  char *evaluate[] = {"mnist_train", "--epochs", "0", "--load", "m.st"};
  ck_assert_msg(train_options_parse(&o, 5, evaluate, err, sizeof err) == 0,
                "%s", err);
  ck_assert_int_eq(o.config.context_cycle, 0);
  char *no_steps[] = {"mnist_train", "--steps", "0"};
  ck_assert_msg(train_options_parse(&o, 3, no_steps, err, sizeof err) == 0,
                "%s", err);
  ck_assert_int_eq(o.config.context_cycle, 0);
  char *named[] = {"mnist_train", "--context-cycle"};
  ck_assert_msg(train_options_parse(&o, 2, named, err, sizeof err) == 0, "%s",
                err);
  ck_assert_int_eq(o.config.context_cycle, 1);
}
END_TEST

START_TEST(hidden_none) {
  train_options o;
  char err[256];
  char *argv[] = {"mnist_train", "--hidden", "none"};
  ck_assert_int_eq(train_options_parse(&o, 3, argv, err, sizeof err), 0);
  ck_assert_int_eq(o.config.depth, 1);
  ck_assert_int_eq(o.config.widths[1], 10);
}
END_TEST

/* Every mode and precision by name; the default loss scale is left 0 (the
 * network's own: 1024 for fp16). */
START_TEST(modes_and_precisions) {
  const char *modes[] = {"fused", "unfused", "auto"};
  const mlp_mode mode_values[] = {MLP_MODE_FUSED, MLP_MODE_UNFUSED,
                                  MLP_MODE_AUTO};
  const char *precisions[] = {"fp32", "tf32", "bf16", "fp16"};
  char err[256];
  for (int m = 0; m < 3; m++)
    for (int p = 0; p < 4; p++) {
      train_options o;
      char *argv[] = {"mnist_train", "--mode", (char *)modes[m], "--precision",
                      (char *)precisions[p]};
      ck_assert_msg(train_options_parse(&o, 5, argv, err, sizeof err) == 0,
                    "%s", err);
      ck_assert_int_eq(o.config.mode, mode_values[m]);
      ck_assert_int_eq(o.gpu.precision, p);
      ck_assert_str_eq(gpu_precision_name(o.gpu.precision), precisions[p]);
      ck_assert_float_eq(o.config.loss_scale, 0.0f);
    }
  ck_assert_int_eq(lt_precision_dtype(GPU_PRECISION_TF32), LT_DTYPE_F32);
  ck_assert_int_eq(lt_precision_dtype(GPU_PRECISION_BF16), LT_DTYPE_BF16);
  ck_assert_int_eq(lt_precision_dtype(GPU_PRECISION_FP16), LT_DTYPE_F16);
  ck_assert_int_eq(gpu_precision_parse("fp64"), -1);
  /* Evaluation only, and a run cut short in file order. */
  train_options o;
  char *eval[] = {"mnist_train", "--epochs", "0", "--load", "m.st"};
  ck_assert_msg(train_options_parse(&o, 5, eval, err, sizeof err) == 0, "%s",
                err);
  ck_assert_str_eq(o.load_path, "m.st");
  char *cut[] = {"mnist_train", "--steps",  "3",  "--order",
                 "file",        "--hidden", "100"};
  ck_assert_int_eq(train_options_parse(&o, 7, cut, err, sizeof err), 0);
  ck_assert(o.config.max_steps == 3 && o.config.file_order && o.hidden_given);
}
END_TEST

/* --precision fp8 pads every width to a multiple of 16 (FP8's rule for m
 * and k), whatever --pad-units / --pad-to said: none, the default 8
 * (stored as 0), 16 and 32 (kept). Other precisions keep what was said. */
START_TEST(fp8_pads_to_16) {
  struct {
    const char *flags[3];
    int multiple;
  } cases[] = {{{NULL}, 16},
               {{"--pad-units"}, 16},
               {{"--pad-to", "8"}, 16},
               {{"--pad-to", "16"}, 16},
               {{"--pad-to", "32"}, 32}};
  char err[256];
  for (int c = 0; c < 5; c++) {
    char *argv[6] = {"mnist_train", "--precision", "fp8"};
    int argc = 3;
    for (int i = 0; i < 3 && cases[c].flags[i]; i++)
      argv[argc++] = (char *)cases[c].flags[i];
    train_options o;
    ck_assert_msg(train_options_parse(&o, argc, argv, err, sizeof err) == 0,
                  "%s", err);
    ck_assert_int_eq(o.config.pad_units, 1);
    ck_assert_msg(o.config.pad_multiple == cases[c].multiple,
                  "case %d: padded to %d, expected %d", c,
                  o.config.pad_multiple, cases[c].multiple);
  }
  train_options o;
  char *bf16[] = {"mnist_train", "--precision", "bf16", "--pad-units"};
  ck_assert_int_eq(train_options_parse(&o, 4, bf16, err, sizeof err), 0);
  ck_assert_int_eq(o.config.pad_multiple, 0); /* 8 */
}
END_TEST

/* Issue 28, defect 8: evaluating an fp8 checkpoint with a recipe flag
 * (--load fp8.st --epochs 0 --fp8-fast-accum none) parses, each fp8 flag
 * recorded as given; the flag is checked against the precision once the
 * file has given it (train_options_check_fp8): fp8 passes, another is
 * refused naming the flag and the precision. Before, the parser refused
 * it as "--precision fp32". */
START_TEST(fp8_flags_wait_for_the_files_precision) {
  char *argv[] = {"mnist_train", "--load",           "fp8.st", "--epochs",
                  "0",           "--fp8-fast-accum", "none"};
  train_options o;
  char err[256] = "";
  ck_assert_msg(train_options_parse(&o, 7, argv, err, sizeof err) == 0, "%s",
                err);
  ck_assert(!o.fp8_given[0] && !o.fp8_given[1] && o.fp8_given[2]);
  ck_assert_int_eq(o.config.fp8.fast_accum, FP8_FAST_ACCUM_NONE);
  o.gpu.precision = GPU_PRECISION_FP8; /* the file's */
  ck_assert_int_eq(train_options_check_fp8(&o, err, sizeof err), 0);
  o.gpu.precision = GPU_PRECISION_BF16;
  ck_assert_int_eq(train_options_check_fp8(&o, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "--fp8-fast-accum") && strstr(err, "bf16"), "%s",
                err);
  /* Training, or --precision given: checked at once. */
  char *train[] = {"mnist_train", "--load", "fp8.st", "--fp8-fast-accum",
                   "none"};
  ck_assert_int_eq(train_options_parse(&o, 5, train, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "--fp8-fast-accum applies to --precision fp8"),
                "%s", err);
}
END_TEST

/* The one builder of a run's network (trainer, --epochs 0, mnist_predict):
 * the precision's matmul type, the activation, padding and loss scale, FP8's
 * rule (16) and recipe; the configuration itself untouched. */
START_TEST(one_builder_of_the_network) {
  trainer_config c = trainer_config_defaults();
  c.activation = LT_ACTIVATION_GELU;
  c.loss_scale = 256.0f;
  gpu_options g = gpu_options_defaults();
  g.precision = GPU_PRECISION_FP8;
  c.fp8.current = 1;
  mlp_options net;
  trainer_config_network(&net, &c, &g);
  ck_assert_int_eq(net.type, LT_DTYPE_BF16);
  ck_assert_int_eq(net.activation, LT_ACTIVATION_GELU);
  ck_assert(net.fp8 && net.fp8_recipe.current && net.loss_scale == 256.0f);
  ck_assert(net.pad_units && net.pad_multiple == 16 && !net.inference_only);
  ck_assert_int_eq(c.pad_units, 0); /* c as it was */
  c.pad_units = 1;
  c.pad_multiple = 32;
  trainer_config_network(&net, &c, &g);
  ck_assert_int_eq(net.pad_multiple, 32);
  g.precision = GPU_PRECISION_FP16;
  c.pad_units = 0;
  trainer_config_network(&net, &c, &g);
  ck_assert(net.type == LT_DTYPE_F16 && !net.fp8 && !net.pad_units);
}
END_TEST

/* Whether --hidden and --activation were given (--load's checkpoint must
 * then agree) comes from the parser, in either spelling; a flag not given
 * leaves its record 0, whatever the values of other flags look like. */
START_TEST(given_flags_are_recorded) {
  train_options o;
  char err[256];
  char *none[] = {"mnist_train", "--log=--hidden", "--epochs", "2"};
  ck_assert_msg(train_options_parse(&o, 4, none, err, sizeof err) == 0, "%s",
                err);
  ck_assert_int_eq(o.hidden_given, 0);
  ck_assert_int_eq(o.activation_given, 0);
  char *both[] = {"mnist_train", "--activation=gelu", "--hidden", "64,32"};
  ck_assert_msg(train_options_parse(&o, 4, both, err, sizeof err) == 0, "%s",
                err);
  ck_assert_int_eq(o.hidden_given, 1);
  ck_assert_int_eq(o.activation_given, 1);
  char *one[] = {"mnist_train", "--hidden=none"};
  ck_assert_msg(train_options_parse(&o, 2, one, err, sizeof err) == 0, "%s",
                err);
  ck_assert_int_eq(o.hidden_given, 1);
  ck_assert_int_eq(o.activation_given, 0);
}
END_TEST

typedef struct bad_flags {
  const char *args[3];
  const char *words; /* must appear in the error */
} bad_flags;

static const bad_flags bad[] = {
    {{"--epochs", "0"}, "--epochs 0 evaluates a trained network"},
    {{"--epochs", "-1"}, "--epochs: expected a whole number"},
    {{"--epochs=0", "--load=m.st", "--save=x.st"},
     "--epochs 0 evaluates only: expected none of the flags only training "
     "reads (--steps, --lr, --momentum, --schedule, --seed, --order, "
     "--save, --log, --show-plans, --chain, --no-graphs, --loss-scale, "
     "--context-cycle, --no-context-cycle, --tune-cache, --tune-cache-dir, "
     "--tune-here, --tune-budget), found --save"},
    {{"--context-cycle", "--no-context-cycle"},
     "one of --context-cycle (the default) and --no-context-cycle, found "
     "both"},
    {{"--order", "random"}, "'shuffle' or 'file'"},
    {{"--steps", "x"}, "--steps"},
    {{"--epochs", "5x"}, "found '5x'"},
    {{"--epochs"}, "expected a value"},
    {{"--batch", "-1"}, "--batch"},
    {{"--batch", "70000"}, "--batch"},
    {{"--lr", "0"}, "--lr: expected a number > 0"},
    {{"--lr", "nan"}, "--lr"},
    {{"--lr", "inf"}, "--lr"},
    {{"--momentum", "1"}, "--momentum"},
    {{"--momentum", "-0.1"}, "--momentum"},
    {{"--hidden", "100,,10"}, "--hidden"},
    {{"--hidden", "0"}, "--hidden: expected widths from 1"},
    {{"--hidden", "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16"}, "--hidden"},
    {{"--hidden", "abc"}, "found 'abc'"},
    {{"--seed", "-3"}, "--seed"},
    {{"--mode", "fast"}, "'fused', 'unfused' or 'auto'"},
    {{"--precision", "fp4"}, "'fp32', 'tf32', 'bf16', 'fp16' or 'fp8'"},
    {{"--fp8-format", "e5m2"}, "'hybrid' or 'e4m3'"},
    {{"--fp8-scaling", "jit"}, "'delayed' or 'current'"},
    {{"--fp8-scaling", "current"},
     "--fp8-scaling applies to --precision fp8 only"},
    {{"--fp8-fast-accum", "none"},
     "--fp8-fast-accum applies to --precision fp8 only"},
    {{"--activation", "tanh"}, "--activation: expected 'relu' or 'gelu'"},
    {{"--loss-scale", "1000"}, "--loss-scale: expected a power of two"},
    {{"--loss-scale", "0"}, "--loss-scale"},
    {{"--loss-scale", "-4"}, "--loss-scale"},
    {{"--loss-scale", "2x"}, "--loss-scale"},
    {{"--loss-scale", "1e30"}, "--loss-scale"},
    /* Spellings the strict parser refuses for every number. */
    {{"--loss-scale", "0x400"}, "--loss-scale: expected a power of two"},
    {{"--loss-scale", " 1024"}, "--loss-scale: expected a power of two"},
    {{"--loss-scale", "+1024"}, "--loss-scale: expected a power of two"},
    {{"--lr", "+0.1"}, "--lr: expected a number"},
    {{"--schedule", "step"}, "'cosine' or 'constant'"},
    {{"--autotune", "on"}, "'exact', 'fast' or 'off'"},
    {{"--no-autotune"}, "unknown flag"},
    {{"--device", "x"}, "--device"},
    {{"--data-dir", ""}, "--data-dir"},
    {{"--bogus"}, "unknown flag '--bogus'"},
    {{"-e", "5"}, "expected a flag starting with --"},
    {{"--quiet=1"}, "takes no value"},
    /* Gone: named with its replacement. */
    {{"--tf32"}, "'--tf32' is gone: use --precision tf32"},
    {{"--"}, "unknown flag"},
    /* Values that once parsed into nonsense. */
    {{"--lr", "1e-300"}, "--lr: expected a number > 0"}, /* was 0 as float */
    {{"--lr", "1e-40"}, "--lr"},                         /* subnormal */
    {{"--seed", " -5"}, "--seed"}, /* was 18446744073709551611 */
    {{"--seed", "-5"}, "--seed"},
    {{"--seed", "+5"}, "--seed"},
    {{"--seed", "18446744073709551616"}, "--seed"}, /* 2^64 */
    {{"--epochs", " 5"}, "--epochs"},
    {{"--epochs", "4294967297"}, "--epochs"},
    {{"--momentum", "0.99999999"}, "expected a number >= 0 and < 1"},
    {{"--batch", "1", "--batch"}, "given twice"},
    {{"--lr", "0x10"}, "--lr"}, /* hex */
    {{"--lr", "1e"}, "--lr"},
    {{"--momentum", "1e-300"}, "--momentum"}, /* underflows to 0 */
    {{"--momentum", "nan"}, "--momentum"},
    {{"--lr", "."}, "--lr"},
    {{"--data-dir", "--quiet"}, "found the flag '--quiet'"},
    {{"--log", "--epochs", "5"}, "found the flag '--epochs'"},
    {{"--=x"}, "unknown flag"},
};

START_TEST(bad_flags_are_named) {
  const bad_flags *c = &bad[_i];
  char *argv[4] = {"mnist_train"};
  int argc = 1;
  for (int i = 0; i < 3 && c->args[i]; i++)
    argv[argc++] = (char *)c->args[i];
  train_options o;
  char err[512] = ""; /* mnist_train's */
  ck_assert_int_eq(train_options_parse(&o, argc, argv, err, sizeof err), -1);
  ck_assert_msg(strstr(err, c->words) != NULL, "case %d: '%s' lacks '%s'", _i,
                err, c->words);
}
END_TEST

/* --epochs 0 evaluates: one rule, every flag only training reads is
 * refused with it (whatever its value: --steps 0 as --steps 1), naming
 * it; the flags evaluation reads pass. */
/* 1 when --help's --epochs paragraph (up to the next flag's line) names
 * `flag`, followed by a comma, a newline or a space. */
static int epochs_help_names(const char *flag) {
  static char help[16384];
  FILE *f = fmemopen(help, sizeof help - 1, "w");
  ck_assert_ptr_nonnull(f);
  train_options_usage(f, "mnist_train");
  fclose(f);
  const char *start = strstr(help, "  --epochs N"),
             *end = start ? strstr(start, "\n  --steps N") : NULL;
  ck_assert_msg(start && end, "--help has no --epochs paragraph");
  size_t n = strlen(flag);
  for (const char *at = strstr(start, flag); at && at < end;
       at = strstr(at + 1, flag))
    if (at[n] == ',' || at[n] == '\n' || at[n] == ' ') return 1;
  return 0;
}

START_TEST(evaluation_refuses_training_flags) {
  static const char *const training[][2] = {
      {"--steps", "0"},
      {"--steps", "1"},
      {"--lr", "3"},
      {"--momentum", "0.5"},
      {"--schedule", "constant"},
      {"--seed", "2"},
      {"--order", "file"},
      {"--save", "x.st"},
      {"--log", "x.csv"},
      {"--show-plans", NULL},
      {"--chain", "all"},
      {"--no-graphs", NULL},
      {"--loss-scale", "2"},
      {"--context-cycle", NULL},
      {"--no-context-cycle", NULL},
      {"--tune-cache", "off"},
      {"--tune-cache-dir", "d"},
      {"--tune-here", NULL},
      {"--tune-budget", "50"},
  };
  char err[512];
  train_options o;
  for (size_t i = 0; i < sizeof training / sizeof training[0]; i++) {
    char *argv[6] = {"mnist_train", "--epochs", "0",
                     "--load",      "m.st",     (char *)training[i][0]};
    char *with_value[7] = {argv[0],
                           argv[1],
                           argv[2],
                           argv[3],
                           argv[4],
                           argv[5],
                           (char *)training[i][1]};
    int argc = training[i][1] ? 7 : 6;
    char found[64];
    snprintf(found, sizeof found, "found %s", training[i][0]);
    ck_assert_msg(epochs_help_names(training[i][0]),
                  "--help's --epochs text does not name %s", training[i][0]);
    ck_assert_int_eq(train_options_parse(&o, argc, with_value, err, sizeof err),
                     -1);
    ck_assert_msg(strstr(err, "--epochs 0 evaluates only") &&
                      strstr(err, found),
                  "%s: %s", training[i][0], err);
  }
  char *reads[] = {"mnist_train",
                   "--epochs",
                   "0",
                   "--load",
                   "m.st",
                   "--batch",
                   "64",
                   "--precision",
                   "bf16",
                   "--mode",
                   "auto",
                   "--pad-to",
                   "16",
                   "--autotune",
                   "fast",
                   "--quiet",
                   "--hidden",
                   "100",
                   "--activation",
                   "gelu",
                   "--data-dir",
                   "d",
                   "--device",
                   "1"};
  ck_assert_msg(train_options_parse(&o, (int)(sizeof reads / sizeof reads[0]),
                                    reads, err, sizeof err) == 0,
                "%s", err);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("options");
  TCase *tc = tcase_create("parse");
  tcase_add_test(tc, defaults);
  tcase_add_test(tc, every_flag);
  tcase_add_test(tc, modes_and_precisions);
  tcase_add_test(tc, fp8_pads_to_16);
  tcase_add_test(tc, fp8_flags_wait_for_the_files_precision);
  tcase_add_test(tc, one_builder_of_the_network);
  tcase_add_test(tc, context_cycle_by_default);
  tcase_add_test(tc, hidden_none);
  tcase_add_test(tc, given_flags_are_recorded);
  tcase_add_test(tc, evaluation_refuses_training_flags);
  tcase_add_loop_test(tc, bad_flags_are_named, 0,
                      (int)(sizeof bad / sizeof bad[0]));
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
