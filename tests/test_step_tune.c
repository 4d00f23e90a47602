/* test_step_tune.c: the step tuner end to end (train/step_tune.h), through
 * mnist_train and mnist_bench on the real data and the GPU:
 *   - under --autotune exact a tuned run prints the digits of --autotune
 *     off (loss and accuracy columns of --log; timing columns excluded),
 *     fused and unfused, in FP32 and BF16;
 *   - two processes print the same fingerprint with the cache (the second
 *     reads what the first wrote, chooses in under 20 ms and asks for no
 *     candidate list its choices do not need); without it, tuning in a
 *     CUDA context of its own (the default) or in the training's
 *     (--tune-here), they choose the same in every slot their evidence
 *     decided clearly (assert_same_choices, tests/tune_report_text.h);
 *   - choices made apart are checked in a fresh context against the first
 *     candidates, and kept where they gain (784-100-10 FP32);
 *   - --mode auto is never behind its own fused and unfused rows in
 *     mnist_bench (each group made in every creation order, the later
 *     orders with the first's choices) beyond the rows' own spread (1 %
 *     where it made the better row's step: then the rows differ by
 *     placement alone), and weighs the step whose calls go the ways they
 *     take alone against the better whole step;
 *   - the context cycle (on by default) prints the digits of a run
 *     without it, and cycles a context only where the tuner made none
 *     apart.
 * Skips (77) without a GPU or the data, saying which. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tests/test_gpu.h"
#include "tests/test_util.h"
#include "tests/tune_report_text.h"

static const char *mnist_dir;
static char dir[4096];

/* Fails with `what` when !ok, the program's output `text` printed first:
 * Check carries at most a few KB of message (a longer one is cut to
 * "Message string too long"). */
static void assert_or_show(int ok, const char *text, const char *what) {
  if (!ok) {
    printf("%s\n", text);
    fflush(stdout);
  }
  ck_assert_msg(ok, "%s (its output is printed above)", what);
}

/* Runs `command` (output into out); returns its exit code. */
static int run(const char *command, char *out, size_t size) {
  return test_capture(command, out, size);
}

/* The --log CSV's loss and accuracy columns (the first five). */
static void log_digits(char *out, size_t size, const char *path) {
  FILE *f = fopen(path, "r");
  ck_assert_msg(f != NULL, "no log %s", path);
  char line[512];
  size_t at = 0;
  out[0] = '\0';
  while (fgets(line, sizeof line, f)) {
    int commas = 0;
    size_t keep = 0;
    while (line[keep] && commas < 5)
      commas += line[keep++] == ',';
    if (at + keep + 1 < size) {
      memcpy(out + at, line, keep);
      at += keep;
      out[at++] = '\n';
      out[at] = '\0';
    }
  }
  fclose(f);
}

/* mnist_train 2 epochs of 784-256-10 with `args`, its log's digits. */
static void train_digits(char *digits, size_t size, const char *args,
                         const char *tag) {
  char log[4300], command[8192], out[16384];
  snprintf(log, sizeof log, "%s/%s.csv", dir, tag);
  snprintf(command, sizeof command,
           "'%s' --data-dir '%s' --hidden 256 --epochs 2 --quiet "
           "--tune-cache off --log '%s' %s",
           MNIST_TRAIN_PATH, mnist_dir, log, args);
  assert_or_show(run(command, out, sizeof out) == 0, out, "mnist_train failed");
  log_digits(digits, size, log);
}

/* Loop index: {fused, unfused} x {fp32, bf16}. */
START_TEST(exact_tuning_prints_what_off_prints) {
  static const char *modes[] = {"fused", "unfused"};
  static const char *precisions[] = {"fp32", "bf16"};
  char args[256], tuned[4096], off[4096];
  const char *mode = modes[_i % 2], *precision = precisions[_i / 2];
  snprintf(args, sizeof args, "--mode %s --precision %s --autotune exact", mode,
           precision);
  train_digits(tuned, sizeof tuned, args, "tuned");
  snprintf(args, sizeof args, "--mode %s --precision %s --autotune off", mode,
           precision);
  train_digits(off, sizeof off, args, "off");
  ck_assert_msg(strcmp(tuned, off) == 0, "%s %s: tuned\n%s\noff\n%s", mode,
                precision, tuned, off);
}
END_TEST

/* The context cycle (train/trainer.h), mnist_train's default, changes
 * nothing but speed: the digits of --autotune off with and without it; a
 * run that does not tune says it made and destroyed the context, a run
 * whose tuner ran apart (which stands for the cycle) says nothing of it. */
START_TEST(a_context_cycle_changes_nothing_but_speed) {
  char plain[4096], cycled[4096], command[16384], out[65536];
  train_digits(plain, sizeof plain, "--autotune off --no-context-cycle",
               "plain");
  train_digits(cycled, sizeof cycled, "--autotune off", "cycled");
  ck_assert_msg(strcmp(plain, cycled) == 0, "without\n%s\nwith\n%s", plain,
                cycled);
  /* Untuned; tuned apart into an empty cache (its copy's context stands
   * for the cycle); reading that cache; tuned in the run's own context;
   * untuned with --no-context-cycle (neither named nor made). */
  char cache[4200], tuning[5][4400];
  snprintf(cache, sizeof cache, "%s/cycle-cache", dir);
  snprintf(tuning[0], sizeof tuning[0], "--autotune off --tune-cache off");
  snprintf(tuning[1], sizeof tuning[1], "--tune-cache-dir '%s'", cache);
  snprintf(tuning[2], sizeof tuning[2], "--tune-cache-dir '%s'", cache);
  snprintf(tuning[3], sizeof tuning[3], "--tune-cache off --tune-here");
  snprintf(tuning[4], sizeof tuning[4],
           "--autotune off --tune-cache off --no-context-cycle");
  const int cycles[5] = {1, 0, 1, 1, 0}, named[5] = {1, 1, 1, 1, 0};
  for (int i = 0; i < 5; i++) {
    snprintf(
        command, sizeof command,
        "'%s' --data-dir '%s' --hidden 256 --epochs 1 --show-plans %.4400s",
        MNIST_TRAIN_PATH, mnist_dir, tuning[i]);
    assert_or_show(run(command, out, sizeof out) == 0, out,
                   "mnist_train failed");
    assert_or_show((strstr(out, ", context cycle\n") != NULL) == named[i], out,
                   named[i] ? "the header does not name the context cycle"
                            : "the header names a context cycle turned off");
    int said = strstr(out, "context cycle: a CUDA context made and "
                           "destroyed after the warm-up in ") != NULL;
    assert_or_show(said == cycles[i], out,
                   cycles[i] ? "a run whose tuner made no context apart "
                               "made no context cycle"
                   : i == 4  ? "--no-context-cycle made a context cycle"
                             : "a run whose tuner ran apart cycled a "
                               "context again");
  }
}
END_TEST

/* Of a --show-plans report: how many plans had their candidate list asked
 * for ("N offered" in the plans' table), and how many of the step tuner's
 * choices are past the heuristic's first ("#N", N > 0, in its slots'). */
static void plan_lists(const char *text, int *listed, int *past_first) {
  const char *tuner = strstr(text, "step tuner: fingerprint ");
  *listed = *past_first = 0;
  for (const char *line = text; line && *line;) {
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    const char *hash = memchr(line, '#', len);
    /* Plan rows are indented (their table's title is not); a slot's row
     * is indented by two, the evidence's by four. */
    int indent = (int)strspn(line, " ");
    if (line < tuner && indent > 0) {
      const char *offered = strstr(line, " offered");
      *listed += offered != NULL && offered < line + len;
    } else if (line > tuner && indent == 2 && hash && hash[1] >= '1' &&
               hash[1] <= '9') {
      ++*past_first;
    }
    line = end ? end + 1 : NULL;
  }
}

/* One process's run with --show-plans: its report read back
 * (tests/tune_report_text.h), how it chose, and its whole text. */
typedef struct tuner_report {
  tune_report_text parsed;
  const char *fingerprint; /* parsed.fingerprint */
  double ms;
  int cached, apart, listed, past_first;
  char text[65536];
} tuner_report;

/* The report of a run with --show-plans and `args` ("step tuner:
 * fingerprint XXXXXXXX, chosen in T ms from|by ..."); listed, past_first:
 * plan_lists. */
static void tuner_run(tuner_report *r, const char *args) {
  char command[8192];
  snprintf(command, sizeof command,
           "'%s' --data-dir '%s' --epochs 1 --show-plans %s", MNIST_TRAIN_PATH,
           mnist_dir, args);
  assert_or_show(run(command, r->text, sizeof r->text) == 0, r->text,
                 "mnist_train failed");
  const char *line = strstr(r->text, "step tuner: fingerprint ");
  assert_or_show(line != NULL && tune_report_text_read(&r->parsed, line) == 0,
                 r->text, "no fingerprint");
  r->fingerprint = r->parsed.fingerprint;
  char how[16] = "";
  printf("%.*s\n", (int)strcspn(line, "\n"), line);
  ck_assert_int_eq(sscanf(line,
                          "step tuner: fingerprint %*8[0-9a-f], chosen in %lf "
                          "ms %15s",
                          &r->ms, how),
                   2);
  r->cached = strcmp(how, "from") == 0;
  const char *end = line + strcspn(line, "\n");
  const char *own = strstr(line, "in a CUDA context of its own");
  r->apart = own != NULL && own < end;
  plan_lists(r->text, &r->listed, &r->past_first);
}

/* Two processes that time the step choose the same in every slot their
 * evidence decided clearly (tune_report_text_differ: near the rule's line
 * the answer depends on the process's noise, and a process whose budget
 * ran out may not have tried the other's value); a difference is printed.
 * From the cache, a run names the tuned run's set exactly. */
static void assert_same_choices(const tuner_report *a, const tuner_report *b) {
  char why[512] = "", what[700];
  int differ = tune_report_text_differ(&a->parsed, &b->parsed, why, sizeof why);
  if (differ != 0) printf("%s\n", a->text);
  snprintf(what, sizeof what, "fingerprints %s and %s: %s", a->fingerprint,
           b->fingerprint, why);
  assert_or_show(differ == 0, b->text, what);
  if (strcmp(a->fingerprint, b->fingerprint) != 0)
    printf("fingerprints %s and %s: they differ only near the rule's line or "
           "where a budget ran out\n",
           a->fingerprint, b->fingerprint);
}

START_TEST(the_same_command_chooses_the_same) {
  static tuner_report first, second, again;
  char cache[4300], args[4400];
  snprintf(cache, sizeof cache, "%s/cache", dir);
  snprintf(args, sizeof args, "--tune-cache-dir '%s'", cache);
  tuner_run(&first, args);
  ck_assert_int_eq(first.cached, 0);
  ck_assert_msg(first.apart,
                "the first run did not tune in a context of its own");
  /* Its context takes the choices as made apart: it asks for no list. */
  ck_assert_msg(first.listed == 0, "the first run asked for %d candidate lists",
                first.listed);
  tuner_run(&second, args);
  ck_assert_msg(second.cached, "the second run did not read the cache");
  /* Each choice past the first lists at most its own plan; nothing else
   * asks for a list. */
  ck_assert_msg(second.listed <= second.past_first,
                "reading the cache asked for %d candidate lists, for %d "
                "choices past the first",
                second.listed, second.past_first);
  ck_assert_str_eq(first.fingerprint, second.fingerprint);
  ck_assert_msg(second.ms < 20.0, "choosing from the cache took %.1f ms",
                second.ms);
  /* Without the cache, the margin rule keeps ties with the heuristic:
   * another process chooses the same, and so does one that times the
   * candidates in the training's own context. */
  tuner_run(&again, "--tune-cache off");
  ck_assert_int_eq(again.cached, 0);
  assert_same_choices(&first, &again);
  tuner_run(&again, "--tune-cache off --tune-here");
  ck_assert_int_eq(again.cached + again.apart, 0);
  assert_same_choices(&first, &again);
}
END_TEST

/* 784-100-10 FP32 batch 256, where tuning pays (the heuristic's single
 * answer is poor there): choices past the first, made apart, run in the
 * training's context without its candidate lists (adopted), and name the
 * same set as the tuner choosing in that context; from the cache, the
 * same set again. */
START_TEST(choices_past_the_first_are_adopted) {
  static tuner_report apart_run, cached_run, here_run;
  char cache[4300], args[4400];
  snprintf(cache, sizeof cache, "%s/seed-cache", dir);
  snprintf(args, sizeof args, "--hidden 100 --batch 256 --tune-cache-dir '%s'",
           cache);
  tuner_run(&apart_run, args);
  ck_assert_msg(apart_run.apart && !apart_run.cached,
                "the first run did not tune apart");
  ck_assert_msg(apart_run.past_first > 0,
                "784-100-10 FP32 kept the heuristic's first candidate "
                "everywhere: no choice past it to adopt (on the H200 it "
                "chooses past it)");
  ck_assert_msg(apart_run.listed == 0,
                "adopting %d choices past the first asked for %d lists",
                apart_run.past_first, apart_run.listed);
  /* Checked in a fresh context against the first candidates: kept, as a
   * 2x gain must be (margin over the rule's line above 1). */
  char what[200];
  snprintf(what, sizeof what,
           "the choices made apart were not kept by the check in a fresh "
           "context (checked %d, margin %.2f)",
           apart_run.parsed.checked, apart_run.parsed.check_margin);
  assert_or_show(apart_run.parsed.checked && apart_run.parsed.check_margin > 1,
                 apart_run.text, what);
  tuner_run(&cached_run, args);
  ck_assert_msg(cached_run.cached, "the second run did not read the cache");
  ck_assert_str_eq(apart_run.fingerprint, cached_run.fingerprint);
  tuner_run(&here_run, "--hidden 100 --batch 256 --tune-cache off --tune-here");
  ck_assert_msg(!here_run.apart && !here_run.cached,
                "--tune-here did not tune here");
  ck_assert_msg(!here_run.parsed.checked,
                "--tune-here checked its choices again where it chose them");
  assert_same_choices(&apart_run, &here_run);
}
END_TEST

/* A bench row: "network batch label prec graph median (lo-hi) ...". */
typedef struct row {
  char label[16];
  double median, lo, hi;
} row;

static int bench_rows(row *rows, int max, const char *text) {
  int count = 0;
  for (const char *line = text; line && *line && count < max;) {
    row r;
    char network[32], prec[8], graph[8];
    int batch;
    if (sscanf(line, "%31s %d %15s %7s %7s %lf (%lf-%lf)", network, &batch,
               r.label, prec, graph, &r.median, &r.lo, &r.hi) == 8 &&
        strncmp(network, "784-", 4) == 0)
      rows[count++] = r;
    line = strchr(line, '\n');
    if (line) line++;
  }
  return count;
}

static const row *find(const row *rows, int count, const char *label) {
  for (int i = 0; i < count; i++)
    if (strcmp(rows[i].label, label) == 0) return &rows[i];
  return NULL;
}

/* Row `label`'s step tuner report in mnist_bench --show-plans output. */
static int row_report(tune_report_text *r, const char *text,
                      const char *label) {
  char header[64];
  snprintf(header, sizeof header, "\n784-100-10 %s fp32:\n", label);
  const char *at = strstr(text, header);
  return at ? tune_report_text_read(r, at) : -1;
}

/* auto (and auto+pad, where the run has +pad rows) against fused and
 * unfused (+pad) of the same run: its median at most the better one's
 * plus the larger of their spreads, compared in the printed hundredths of
 * a ms (as doubles, 10.37 + 0.02 is 10.3899999...: session 9's call H
 * failed on that tie, 10.39 against 10.37 with a spread of 0.02). Where
 * auto's choices make the better row's very step (its reports:
 * tune_report_text_same_step), the two rows differ by their placement
 * alone, which the spreads do not hold (0.02-0.03 ms in sessions 5, 8, 9
 * and 19): then the choice is what is judged, and the time is held to
 * issue 27's 1.01x. */
START_TEST(auto_is_never_behind) {
  char command[8192];
  static char text[262144];
  static tune_report_text auto_plans, best_plans;
  snprintf(command, sizeof command,
           "'%s' --data-dir '%s' --network seed --precision fp32 "
           "--activation relu --no-layers --repeats 5 --tune-cache off "
           "--show-plans",
           MNIST_BENCH_PATH, mnist_dir);
  assert_or_show(run(command, text, sizeof text) == 0, text,
                 "mnist_bench failed");
  row rows[16];
  int count = bench_rows(rows, 16, text);
  /* Every row's group was made in each creation order, the later orders
   * with the first one's choices (trainer_config.tune_given): the cache
   * is off here, so a row that tuned again could differ. */
  int orders = 0;
  for (const char *at = text; (at = strstr(at, "\ncreation orders (")); at++)
    orders++;
  assert_or_show(orders == count && count > 0, text,
                 "not one creation-orders line per row");
  assert_or_show(!strstr(text, "NOT the same set"), text,
                 "a creation order ran another set");
  const char *suffix[2] = {"", "+pad"};
  for (int p = 0; p < 2; p++) {
    char f[16], u[16], a[16];
    snprintf(f, sizeof f, "fused%s", suffix[p]);
    snprintf(u, sizeof u, "unfused%s", suffix[p]);
    snprintf(a, sizeof a, "auto%s", suffix[p]);
    const row *fr = find(rows, count, f), *ur = find(rows, count, u),
              *ar = find(rows, count, a);
    if (p == 1 && !fr && !ur && !ar) continue; /* no +pad rows here */
    assert_or_show(fr && ur && ar, text, "a row is missing");
    const row *best = fr->median <= ur->median ? fr : ur;
    if (row_report(&auto_plans, text, a) == 0 &&
        row_report(&best_plans, text, best->label) == 0 &&
        tune_report_text_same_step(&auto_plans, &best_plans, best == ur)) {
      printf("%s made %s's step: held to 1.01x (%.2f against %.2f ms)\n", a,
             best->label, ar->median, best->median);
      ck_assert_msg(lround(ar->median * 100) <= lround(best->median * 101),
                    "%s %.3f ms, %s's step, over 1.01x %s's %.3f", a,
                    ar->median, best->label, best->label, best->median);
      continue;
    }
    double spread = best->hi - best->lo;
    if (ar->hi - ar->lo > spread) spread = ar->hi - ar->lo;
    ck_assert_msg(lround(ar->median * 100) <=
                      lround(best->median * 100) + lround(spread * 100),
                  "%s %.3f ms behind %s %.3f (spread %.3f)", a, ar->median,
                  best->label, best->median, spread);
  }
}
END_TEST

/* The first `needle` in text from `from` on, its line printed; the test
 * fails with `why` and the text when there is none. */
static const char *found_line(const char *text, const char *from,
                              const char *needle, const char *why) {
  const char *at = strstr(from, needle);
  assert_or_show(at != NULL, text, why);
  printf("%.*s\n", (int)strcspn(at + (*at == '\n'), "\n"), at + (*at == '\n'));
  return at;
}

/* The check in a fresh context's row, if the run has one: it must defend
 * the start (of the search --autotune off runs) or off's set. Returns the
 * row from its "from" name on, or NULL. */
static const char *assert_check_defends(const char *text) {
  const char *checked = strstr(text, "a fresh context ");
  if (!checked) return NULL;
  const char *from = checked + 15 + strspn(checked + 15, " ");
  assert_or_show(strncmp(from, "start -> chosen: ", 17) == 0 ||
                     strncmp(from, "off's set -> chosen: ", 21) == 0,
                 text, "auto's check defends neither the start nor off's set");
  printf("%.*s\n", (int)strcspn(checked, "\n"), checked);
  return from;
}

/* One epoch of mnist_train under --mode auto, tuned afresh, with
 * --show-plans and `args`, after `env` ("NAME=VALUE " or ""): its output
 * into text; the run must succeed. */
static void run_auto_plans(char *text, size_t size, const char *env,
                           const char *args) {
  char command[8192];
  snprintf(command, sizeof command,
           "%s'%s' --data-dir '%s' %s --mode auto --epochs 1 --tune-cache off "
           "--show-plans",
           env, MNIST_TRAIN_PATH, mnist_dir, args);
  assert_or_show(run(command, text, size) == 0, text, "mnist_train failed");
}

/* run_auto_plans with `args` under a rule: the report must hold the search
 * --autotune off runs, no algorithm tried in it (no candidate but the
 * first loaded), then the whole search, the ways-alone time of both (the
 * second's plans have their ways cached: it alone printed "0.0 ms",
 * session 28's calls A and B), and every way row its times alone (where
 * the whole search stops at off's set, off's). Returns the whole search's
 * line. */
static const char *run_off_first(char *text, size_t size, const char *args) {
  run_auto_plans(text, size, "", args);
  const char *off =
      found_line(text, text, "\n   the search --autotune off runs",
                 "no search --autotune off runs");
  const char *whole =
      found_line(text, off, "\n   the whole search, every candidate",
                 "no whole search after the search --autotune off runs");
  char *part = strndup(off, (size_t)(whole - off));
  int tried = !part || strstr(part, " algo ") || strstr(part, " twin ");
  free(part);
  assert_or_show(!tried, text,
                 "an algorithm tried in the search --autotune off runs");
  const char *alone = strstr(text, " ms deciding the calls' ways alone");
  while (alone && alone > text && alone[-1] != ' ')
    alone--;
  assert_or_show(alone && atof(alone) >= 0.1, text,
                 "the ways alone not timed, or their time lost (under 0.1 ms)");
  assert_or_show(!strstr(text, "(no split)") &&
                     !strstr(text, "(split possible)") &&
                     !strstr(text, "(split refused)"),
                 text, "a way row without its times alone");
  return whole;
}

/* tune_auto_start on the GPU (in the search --autotune off runs, which a
 * rule's run runs first): the default network's unfused wins the
 * whole step by about 4 % (3.6-4.6 % in sessions 17 and 20) and its ways
 * alone lose, so with MNIST_TUNE_AUTO_NARROW=0.5 that win is a narrow one:
 * the report says the check defends every call fused, and the check in a
 * fresh context runs, its row naming the start. */
START_TEST(a_narrow_unfused_win_is_checked_against_fused) {
  char text[65536];
  run_auto_plans(text, sizeof text, "MNIST_TUNE_AUTO_NARROW=0.5 ",
                 "--autotune off");
  const char *whole = strstr(text, "the whole step         fused -> unfused: ");
  assert_or_show(whole != NULL, text, "no whole-step comparison");
  printf("%.*s\n", (int)strcspn(whole, "\n"), whole);
  const char *note =
      strstr(text, "(unfused won by under 50 %: the start the check "
                   "defends is every call fused)");
  assert_or_show(note != NULL, text,
                 "no narrow unfused win (the whole step's unfused ahead, the "
                 "ways alone behind, by under 50 %: on the H200 unfused wins "
                 "by 3.6-4.6 % and the ways alone lose)");
  const char *checked =
      strstr(text, "a fresh context        start -> chosen: ");
  assert_or_show(checked != NULL, text,
                 "the check in a fresh context did not defend the start");
  printf("%.*s\n", (int)strcspn(checked, "\n"), checked);
}
END_TEST

/* 784-100-10 FP16 GELU batch 256 under auto, where the calls alone go
 * different ways (a72cb34's auto ran 13 kernels a step there, all fused
 * 9, all unfused 14): the step with those ways is weighed against the
 * better whole step, whatever the budget; a check in a fresh context, if
 * the chosen set needs one, defends the start (its row names it). */
START_TEST(auto_weighs_the_ways_alone) {
  char text[65536];
  run_auto_plans(text, sizeof text, "",
                 "--hidden 100 --batch 256 --precision fp16 --activation gelu");
  const char *whole =
      found_line(text, text, "the whole step", "no whole-step comparison");
  found_line(text, whole,
             "-> ways alone: ", "no comparison with the ways alone");
  assert_check_defends(text);
}
END_TEST

/* Under auto with a rule: the search --autotune off runs comes first, then
 * the whole search, whose end, where it differs, is weighed against off's
 * set; a check in a fresh context defends off's set where the end won,
 * else the start of off's search. 784-100-10 FP32 batch 256, where tuned
 * algorithms ran the fused step 1.9x faster than the first candidates on
 * the H200. */
START_TEST(auto_starts_from_offs_set) {
  char text[65536];
  const char *whole = run_off_first(
      text, sizeof text, "--hidden 100 --batch 256 --precision fp32");
  const char *weighed =
      strstr(whole, "the whole step         off's set -> tuned: ");
  int tuned_won = 0;
  if (weighed) {
    int len = (int)strcspn(weighed, "\n");
    tuned_won = len > 6 && strncmp(weighed + len - 6, ": wins", 6) == 0;
    printf("%.*s\n", len, weighed);
  }
  const char *checked = assert_check_defends(text);
  if (checked)
    assert_or_show(strstr(checked, tuned_won ? "off's set -> chosen"
                                             : "start -> chosen") == checked,
                   text,
                   tuned_won ? "the tuned end won, the check defends another "
                               "set than off's"
                             : "off's set kept, the check defends another set "
                               "than off's start");
}
END_TEST

/* The default network under auto with a rule: where neither algorithm phase
 * of the whole search moves an algorithm (on the H200 mostly: no candidate
 * there gains the algorithm floor, 6 us a step: tune_rule.h), the search
 * stops at off's set, saying so under its heading; where one moves (session
 * 30's call E: a data gradient's #3 won 6 %), it goes on and says nothing of
 * a stop. The phases' rows: each call's algorithm and twin, and the near
 * winners together (tune_search), up to the first other whole-step row.
 * Either way every way row keeps off's search's times alone (run_off_first;
 * before acc1b08 the slots' rebuild zeroed them there). */
START_TEST(a_search_that_moves_nothing_stops_at_offs_set) {
  char text[65536];
  const char *whole = run_off_first(text, sizeof text, "");
  const char *stop = strstr(
      whole, "\n    no algorithm moved: the rest would run off's search");
  int moved = 0;
  for (const char *row = strstr(whole, "\n    "); row && row != stop;
       row = strstr(row + 1, "\n    ")) {
    char line[256];
    snprintf(line, sizeof line, "%.*s", (int)strcspn(row + 1, "\n"), row + 1);
    int near = strstr(line, "-> near winners together: ") != NULL;
    if (strstr(line, "the whole step ") && !near) break;
    size_t len = strlen(line);
    moved |= (near || strstr(line, " algo ") || strstr(line, " twin ")) &&
             len > 6 && strcmp(line + len - 6, ": wins") == 0;
  }
  assert_or_show(moved ? stop == NULL : stop != NULL, text,
                 moved ? "an algorithm moved, yet the search stopped"
                       : "no algorithm moved, yet the whole search did not "
                         "stop at off's set");
}
END_TEST

int main(void) {
  test_require_gpu("step_tune");
  char why[1024];
  const char *mnist[] = {MNIST_SOURCE_DIR "/data/mnist",
                         MNIST_SOURCE_DIR "/../shared/data/mnist", NULL};
  mnist_dir = test_find_data("MNIST_DIR", mnist, why, sizeof why);
  if (!mnist_dir) {
    printf("SKIP step_tune: MNIST %s\n", why);
    return TEST_SKIP;
  }
  if (test_make_temp_dir(dir, sizeof dir) != 0) return 1;
  Suite *suite = suite_create("step_tune");
  TCase *tc = tcase_create("step_tune");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, exact_tuning_prints_what_off_prints, 0, 4);
  tcase_add_test(tc, the_same_command_chooses_the_same);
  tcase_add_test(tc, choices_past_the_first_are_adopted);
  tcase_add_test(tc, auto_is_never_behind);
  tcase_add_test(tc, auto_weighs_the_ways_alone);
  tcase_add_test(tc, auto_starts_from_offs_set);
  tcase_add_test(tc, a_search_that_moves_nothing_stops_at_offs_set);
  tcase_add_test(tc, a_narrow_unfused_win_is_checked_against_fused);
  tcase_add_test(tc, a_context_cycle_changes_nothing_but_speed);
  suite_add_tcase(suite, tc);
  int status = test_run_suite(suite, 1);
  test_remove_dir(dir);
  return status;
}
