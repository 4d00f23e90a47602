/* test_tune_report_text.c: the step tuner's report, printed by
 * step_tune_print, read back by tests/tune_report_text.h: slot rows of
 * every field (a way row with its times alone and split chosen), evidence
 * rows (won, kept, out early, refused, whole-step, the check in a fresh
 * context), the budget note; the rule by which two processes' choices
 * may differ; and when auto's choices make a mode's step. Plain C. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/test_util.h"
#include "tests/tune_report_text.h"
#include "train/step_tune.h"

/* A report of calls data grad 2->1 (slots: algo, twin, way; DRELU_BGRAD,
 * so it may go split) and weights 1 (algo), no comparisons yet. */
static void make_report(step_tune_report *r) {
  memset(r, 0, sizeof *r);
  r->tuned = 1;
  r->fingerprint = 0x1234abcdu;
  r->call_count = 2;
  r->calls[0] = (mlp_call){.kind = MLP_CALL_DATA_GRADIENT, .layer = 1};
  r->calls[0].call.shape.epilogue = LT_EPILOGUE_DRELU_BGRAD;
  r->calls[1] = (mlp_call){.kind = MLP_CALL_WEIGHTS, .layer = 0};
  r->slot_count = 4;
  tune_field fields[4] = {TUNE_FIELD_ALGO, TUNE_FIELD_PLAIN, TUNE_FIELD_WAY,
                          TUNE_FIELD_ALGO};
  for (int i = 0; i < 4; i++) {
    tune_slot *s = &r->slots[i];
    s->call = i < 3 ? 0 : 1;
    s->field = fields[i];
    s->count = 4;
    for (int v = 0; v < 4; v++) {
      s->ok[v] = 1;
      s->alone_us[v] = 10.0f + v;
    }
  }
  r->slots[2].alone_us[LT_AUTO_SPLIT] = 9.5f; /* a way row: times alone */
  r->chosen.value[0] = 3;
  r->chosen.value[1] = 0;
  r->chosen.value[2] = LT_AUTO_SPLIT;
  r->chosen.value[3] = 1;
  tune_log_init(&r->log, 100.0);
}

static void add_record(step_tune_report *r, int slot, int from, int to,
                       double base, double diff, double noise, int wins) {
  tune_record *c = &r->log.record[r->log.count++];
  r->log.comparisons++;
  *c = (tune_record){.slot = slot, .from = from, .to = to};
  c->verdict = (tune_verdict){.pairs = wins ? TUNE_PAIRS : TUNE_EARLY_PAIRS,
                              .base_ms = base,
                              .cand_ms = base + diff,
                              .diff_ms = diff,
                              .noise_ms = noise,
                              .wins = wins,
                              .early = !wins && diff >= 0};
}

/* The check in a fresh context's record (from: TUNE_UNTUNED or
 * TUNE_START) and the defended step alone as its log keeps it: alone_ms
 * (noise 0.0001) in the second round, first_ms in the first (0: not
 * timed). */
static void add_check(step_tune_report *r, int from, double base, double diff,
                      double noise, int wins, double alone_ms,
                      double first_ms) {
  add_record(r, -1, from, TUNE_CHOSEN, base, diff, noise, wins);
  r->log.untuned_alone_ms = alone_ms;
  r->log.untuned_alone_noise_ms = 0.0001;
  r->log.untuned_first_ms = first_ms;
}

/* step_tune_print's text of r, read back into t. */
static void printed(tune_report_text *t, const step_tune_report *r, char *text,
                    size_t size) {
  FILE *f = fmemopen(text, size, "w");
  ck_assert_ptr_nonnull(f);
  fputs("before\n", f);
  step_tune_print(f, r);
  fputs("after the report\n", f);
  fclose(f);
  ck_assert_int_eq(tune_report_text_read(t, text), 0);
}

START_TEST(every_row_reads_back) {
  static step_tune_report r;
  static tune_report_text t;
  static char text[16384];
  make_report(&r);
  add_record(&r, 0, 0, 3, 1.0, -0.015, 0.001, 1); /* margin 1.5 */
  add_record(&r, 3, 0, 1, 1.0, -0.05, 0.001, 1);  /* margin 5 */
  add_record(&r, 2, LT_AUTO_FUSED, LT_AUTO_SPLIT, 1.0, -0.09, 0.001, 1);
  add_record(&r, 3, 1, 2, 1.0, +0.01, 0.001, 0); /* out early */
  tune_record *refused = &r.log.record[r.log.count++];
  *refused = (tune_record){.slot = 0, .from = 3, .to = 2};
  refused->verdict.refused = 1;
  tune_record *whole = &r.log.record[r.log.count++];
  *whole =
      (tune_record){.slot = -1, .from = LT_AUTO_FUSED, .to = LT_AUTO_UNFUSED};
  whole->verdict = (tune_verdict){.pairs = 16, .base_ms = 1, .cand_ms = 1};
  /* The check in a fresh context: 0.012 over 0.5 % of 1.2: margin 2; and
   * 1.1940 - 1.1880 over 0.5 % of 1.194 before the set was loaded: 1.005. */
  add_check(&r, TUNE_UNTUNED, 1.2, -0.012, 0.0001, 1, 1.194, 1.1875);
  printed(&t, &r, text, sizeof text);
  ck_assert_msg(strstr(text, "    a fresh context        untuned -> chosen: "
                             "1.2000 / 1.1880, -0.0120 +- 0.0001 (16): wins; "
                             "before the chosen set was loaded the untuned "
                             "step ran 1.1940 +- 0.0001 (a first round "
                             "1.1875): chosen set kept\n") != NULL,
                "no check row in:\n%s", text);
  ck_assert_int_eq(t.checked, 1);
  ck_assert(t.check_margin > 1.00 && t.check_margin < 1.01);
  ck_assert_str_eq(t.fingerprint, "1234abcd");
  ck_assert_int_eq(t.slots, 4);
  ck_assert_str_eq(t.slot[0], "data grad 2->1 algo");
  ck_assert_str_eq(t.value[0], "#3");
  ck_assert_str_eq(t.slot[1], "data grad 2->1 twin");
  ck_assert_str_eq(t.slot[2], "data grad 2->1 way");
  ck_assert_str_eq(t.value[2], "split");
  ck_assert_str_eq(t.slot[3], "weights 1 algo");
  ck_assert_msg(strstr(text, "(split possible; us alone: fused 11.0, unfused "
                             "12.0, split 9.5)") != NULL,
                "no times alone in:\n%s", text);
  ck_assert_int_eq(t.verdicts, 4); /* the refused and whole-step rows not */
  ck_assert_int_eq(t.whole_steps, 1);
  ck_assert_str_eq(t.verdict[0].slot, "data grad 2->1 algo");
  ck_assert_str_eq(t.verdict[0].from, "#0");
  ck_assert_str_eq(t.verdict[0].to, "#3");
  ck_assert(t.verdict[0].margin > 1.49 && t.verdict[0].margin < 1.51);
  ck_assert(t.verdict[1].margin > 4.99 && t.verdict[1].margin < 5.01);
  ck_assert_str_eq(t.verdict[2].slot, "data grad 2->1 way");
  ck_assert_str_eq(t.verdict[2].from, "fused");
  ck_assert_str_eq(t.verdict[2].to, "split");
  /* A way's floor: 3 % (0.09 over 0.03 x 1.0). */
  ck_assert(t.verdict[2].margin > 2.99 && t.verdict[2].margin < 3.01);
  ck_assert(t.verdict[3].margin < 0);
  ck_assert_int_eq(t.budget_spent, 0);
}
END_TEST

/* A check of sets that differ in ways only (tune_rule_check): the row
 * says so and its margin is the pairs' alone, though the chosen set beat
 * the untuned step alone by less than TUNE_CHECK_MIN_MS. */
START_TEST(a_ways_only_check_reads_back) {
  static step_tune_report r;
  static tune_report_text t;
  static char text[16384];
  make_report(&r);
  /* 0.0045 over 4 x its noise 0.0002: margin 5.6. */
  add_check(&r, TUNE_UNTUNED, 0.0943, -0.0045, 0.0002, 1, 0.0926, 0.0);
  r.log.check_ways_only = 1;
  printed(&t, &r, text, sizeof text);
  ck_assert_msg(strstr(text, "untuned step ran 0.0926 +- 0.0001 (ways only: "
                             "the pairs decide): chosen set kept\n") != NULL,
                "no ways-only check row in:\n%s", text);
  ck_assert_int_eq(t.checked, 1);
  ck_assert(t.check_margin > 5.6 && t.check_margin < 5.7);
}
END_TEST

/* Under --mode auto the check defends the start (tune_auto_start) or, with
 * a rule, off's set (tune_off_defended): the row names it, and a chosen set
 * that loses keeps it, read back with the margin of both sides; the two
 * searches' headings (3 spaces in) are not rows; case 2: the whole search
 * moved no algorithm, said under its heading, before the check's row. */
START_TEST(an_auto_check_names_the_set_it_defends) {
  static step_tune_report r;
  static tune_report_text t;
  static char text[16384];
  const int from[3] = {TUNE_START, TUNE_OFF_SET, TUNE_START};
  const char *name[3] = {"start", "off's set", "start"};
  for (int i = 0; i < 3; i++) {
    make_report(&r);
    if (i) { /* off's search: the first record, its two steps' */
      add_record(&r, -1, LT_AUTO_FUSED, LT_AUTO_UNFUSED, 0.1, 0.002, 0.0001, 0);
      r.log.off_records = 1;
      r.log.off_repeated = i == 2;
    }
    /* The pairs: 0.0010 over 0.5 % of 0.1: margin 2. Against the start
     * alone, 0.0992 - 0.0990 over TUNE_CHECK_MIN_MS: 0.067. */
    add_check(&r, from[i], 0.1, -0.0010, 0.0001, 1, 0.0992, 0.0990);
    printed(&t, &r, text, sizeof text);
    char row[400];
    snprintf(row, sizeof row,
             "    a fresh context        %s -> chosen: 0.1000 / 0.0990, "
             "-0.0010 +- 0.0001 (16): wins; before the chosen set was loaded "
             "the %s step ran 0.0992 +- 0.0001 (a first round 0.0990): %s set "
             "kept\n",
             name[i], name[i], i == 1 ? "off's" : "start");
    const char *check = strstr(text, row);
    ck_assert_msg(check != NULL, "no row '%s' in:\n%s", row, text);
    const char *heading = strstr(text, "\n   the whole search, every "),
               *stop = strstr(text, "\n    no algorithm moved: the rest "
                                    "would run off's search again, so off's "
                                    "set stands\n");
    ck_assert_msg(i == 2 ? heading && heading < stop && stop < check : !stop,
                  "case %d:\n%s", i, text);
    ck_assert_int_eq(t.whole_steps, i > 0);
    ck_assert_int_eq(t.checked, 1);
    ck_assert(t.check_margin > 0.06 && t.check_margin < 0.07);
  }
  ck_assert_msg(
      strstr(text, "\n   the search --autotune off runs") &&
          !strstr(strstr(text, "\n   the whole ") + 1, "\n   the whole "),
      "not one heading each in:\n%s", text);
}
END_TEST

/* tune_report_text_differ on the printed and read-back reports ra, rb. */
static int differ_printed(const step_tune_report *ra,
                          const step_tune_report *rb, char *why, size_t size) {
  static tune_report_text a, b;
  static char text[16384];
  printed(&a, ra, text, sizeof text);
  printed(&b, rb, text, sizeof text);
  return tune_report_text_differ(&a, &b, why, size);
}

/* Two fused-mode reports: slot 0 chose #3 in a (margin `margin_a`) and
 * #0 in b (its comparison of #0 -> #3 at `margin_b`); slot 3 alike. */
static int differ(double margin_a, double margin_b, int b_tried, int b_spent) {
  static step_tune_report ra, rb;
  char why[256];
  make_report(&ra);
  make_report(&rb);
  for (step_tune_report *r = &ra; r; r = r == &ra ? &rb : NULL) {
    r->slots[2] = r->slots[3]; /* no way slot: a fused run */
    r->slot_count = 3;
    r->chosen.value[2] = 1;
  }
  rb.chosen.value[0] = 0;
  add_record(&ra, 0, 0, 3, 1.0, -tune_floor_ms(TUNE_FLOOR_ALGO, 1.0) * margin_a,
             0.0001, margin_a > 1);
  if (b_tried)
    add_record(&rb, 0, 0, 3, 1.0,
               -tune_floor_ms(TUNE_FLOOR_ALGO, 1.0) * margin_b, 0.0001, 0);
  rb.log.budget_hit = b_spent;
  int result = differ_printed(&ra, &rb, why, sizeof why);
  printf("%.2f / %.2f, tried %d, spent %d: %d %s\n", margin_a, margin_b,
         b_tried, b_spent, result, result ? why : "");
  return result;
}

START_TEST(differences_only_near_the_line) {
  ck_assert_int_eq(differ(1.5, 0.8, 1, 0), 0); /* both near */
  ck_assert_int_eq(differ(3.0, 0.8, 1, 0), 0); /* b near */
  ck_assert_int_eq(differ(3.0, 0.1, 1, 0), 1); /* both clear */
  ck_assert_int_eq(differ(3.0, 0.0, 0, 0), 1); /* b never tried #3 */
  ck_assert_int_eq(differ(3.0, 0.0, 0, 1), 0); /* ... its budget ran out */
  ck_assert_int_eq(differ(3.0, 0.1, 1, 1), 1); /* it tried and lost */
}
END_TEST

/* a chose #3 in slot 0 (its search's clear win, kept by its check in a
 * fresh context at `check_a`); b's search chose the same, its check
 * (`check_b`) dropped it, so b runs #0. With `way_differs`, b's way slot
 * (never compared) goes another way too; with `b_value`, b's slot 0 runs
 * that value instead (its search's other clear winner, kept). */
static int differ_checked(double check_a, double check_b, int way_differs,
                          int b_value) {
  static step_tune_report ra, rb;
  char why[256];
  make_report(&ra);
  make_report(&rb);
  rb.chosen.value[0] = 0;
  rb.chosen.value[3] = 0;
  ra.chosen.value[3] = 0;
  if (way_differs) rb.chosen.value[2] = LT_AUTO_FUSED;
  if (b_value) rb.chosen.value[0] = (unsigned char)b_value;
  for (step_tune_report *r = &ra; r; r = r == &ra ? &rb : NULL) {
    double check = r == &ra ? check_a : check_b;
    add_record(r, 0, 0, 3, 1.0, -0.3, 0.001, 1);
    /* Alone 1.0: the pairs' side binds. */
    add_check(r, TUNE_UNTUNED, 1.0, -0.005 * check, 0.0001, check > 1, 1.0,
              0.0);
  }
  int result = differ_printed(&ra, &rb, why, sizeof why);
  printf("checks %.2f / %.2f, way differs %d: %d %s\n", check_a, check_b,
         way_differs, result, result ? why : "");
  return result;
}

START_TEST(a_check_near_the_line_excuses_the_algorithms) {
  ck_assert_int_eq(differ_checked(3.0, 0.8, 0, 0), 0); /* b's check near */
  ck_assert_int_eq(differ_checked(1.5, 0.1, 0, 0), 0); /* a's check near */
  ck_assert_int_eq(differ_checked(3.0, 0.1, 0, 0), 1); /* both clear */
  ck_assert_int_eq(differ_checked(3.0, 0.8, 1, 0), 1); /* not a way */
  /* #3 against #2: no check makes that (session 11's #1 against #5). */
  ck_assert_int_eq(differ_checked(1.5, 0.8, 0, 2), 1);
}
END_TEST

START_TEST(whole_steps_are_not_judged_by_slot) {
  static step_tune_report r;
  static tune_report_text a;
  static char text[16384];
  char why[256];
  make_report(&r);
  tune_record *whole = &r.log.record[r.log.count++];
  *whole = (tune_record){.slot = -1, .from = 1, .to = 2};
  whole->verdict = (tune_verdict){.pairs = 16, .base_ms = 1, .cand_ms = 1};
  printed(&a, &r, text, sizeof text);
  ck_assert_int_eq(tune_report_text_differ(&a, &a, why, sizeof why), -1);
  ck_assert_int_eq(tune_report_text_read(&a, "no report here"), -1);
}
END_TEST

/* mnist_bench --show-plans, 784-100-10 FP32 (session 19's call D): the
 * unfused row's report and auto's, whose calls all went unfused with the
 * unfused row's algorithms (weights 1: a DEFAULT call, an algo slot
 * only). */
static const char unfused_report[] =
    "step tuner: fingerprint 76c372f6, chosen in 408.7 ms\n"
    "  call             slot  chosen   (candidates offered, same numbers)\n"
    "  forward 1        twin  #0       (8, 1; 18.0 / 18.0)\n"
    "  forward 2        twin  #0       (8, 3; 13.9 / 13.9)\n"
    "  weights 2        twin  #4       (7, 6; 52.6 / 13.2)\n"
    "  data grad 2->1   twin  #0       (8, 4; 12.7 / 12.7)\n"
    "  weights 1        twin  #0       (6, 3; 14.0 / 14.0)\n"
    "  evidence: 8 comparisons in the step\n"
    "    weights 2 twin         #0 -> #4: 0.0932 / 0.0427, -0.0505 +- "
    "0.0002 (16): wins\n";
static const char fused_report[] =
    "step tuner: fingerprint 7b3e1847, chosen in 416.6 ms\n"
    "  call             slot  chosen   (candidates offered, same numbers)\n"
    "  forward 1        algo  #0       (8, 1; 22.0 / 22.0)\n"
    "  forward 2        algo  #0       (8, 3; 13.3 / 13.3)\n"
    "  weights 2        algo  #4       (7, 6; 55.1 / 18.5)\n"
    "  data grad 2->1   algo  #0       (8, 4; 15.8 / 15.8)\n"
    "  weights 1        algo  #0       (6, 3; 12.4 / 12.4)\n";
static const char auto_report[] =
    "step tuner: fingerprint 312cbae6, chosen in 545.1 ms\n"
    "  call             slot  chosen   (candidates offered, same numbers)\n"
    "  forward 1        algo  #0       (8, 1; 29.9 / 29.9)\n"
    "  forward 1        twin  #0       (8, 1; 21.3 / 21.3)\n"
    "  forward 1        way   unfused  (no split; us alone: fused 11.0)\n"
    "  forward 2        algo  #0       (8, 3; 12.4 / 12.4)\n"
    "  forward 2        twin  #0       (8, 3; 17.6 / 17.6)\n"
    "  forward 2        way   unfused  (no split; us alone: fused 6.7)\n"
    "  weights 2        algo  #4       (7, 6; 55.2 / 23.2)\n"
    "  weights 2        twin  #4       (7, 6; 52.4 / 17.3)\n"
    "  weights 2        way   unfused  (no split; us alone: fused 54.1)\n"
    "  data grad 2->1   algo  #0       (8, 4; 20.0 / 20.0)\n"
    "  data grad 2->1   twin  #0       (8, 4; 16.4 / 16.4)\n"
    "  data grad 2->1   way   unfused  (split possible; us alone: fused 9.3)\n"
    "  weights 1        algo  #0       (6, 3; 16.6 / 16.6)\n";

/* auto_report with `from` replaced by `to` (once), read back into r. */
static void auto_with(tune_report_text *r, const char *from, const char *to) {
  static char text[sizeof auto_report + 64];
  const char *at = strstr(auto_report, from);
  ck_assert_ptr_nonnull(at);
  snprintf(text, sizeof text, "%.*s%s%s", (int)(at - auto_report), auto_report,
           to, at + strlen(from));
  ck_assert_int_eq(tune_report_text_read(r, text), 0);
}

/* Auto made unfused's step: every way unfused, the twins alike, weights
 * 1's algo the unfused row's twin. Any one difference, a way, a twin or
 * the DEFAULT call's algo, and it did not; nor did it make fused's. */
START_TEST(auto_made_the_step_of_a_mode) {
  static tune_report_text a, u, f, changed;
  ck_assert_int_eq(tune_report_text_read(&a, auto_report), 0);
  ck_assert_int_eq(tune_report_text_read(&u, unfused_report), 0);
  ck_assert_int_eq(tune_report_text_read(&f, fused_report), 0);
  ck_assert_int_eq(tune_report_text_same_step(&a, &u, 1), 1);
  ck_assert_int_eq(tune_report_text_same_step(&a, &f, 0), 0);
  ck_assert_int_eq(tune_report_text_same_step(&a, &a, 1), 0);
  const char *edits[][2] = {
      {"way   unfused  (split", "way   split    (split"},
      {"forward 2        way   unfused", "forward 2        way   fused  "},
      {"weights 2        twin  #4", "weights 2        twin  #3"},
      {"weights 1        algo  #0", "weights 1        algo  #1"}};
  for (int e = 0; e < 4; e++) {
    auto_with(&changed, edits[e][0], edits[e][1]);
    ck_assert_msg(tune_report_text_same_step(&changed, &u, 1) == 0,
                  "edit %d: still unfused's step", e);
  }
  /* every way fused, the algos as the fused row's: fused's step */
  static char all_fused[sizeof auto_report];
  snprintf(all_fused, sizeof all_fused, "%s", auto_report);
  for (char *w = strstr(all_fused, "unfused  ("); w;
       w = strstr(w, "unfused  ("))
    memcpy(w, "fused    ", 9);
  ck_assert_int_eq(tune_report_text_read(&changed, all_fused), 0);
  ck_assert_int_eq(tune_report_text_same_step(&changed, &f, 0), 1);
  ck_assert_int_eq(tune_report_text_same_step(&changed, &u, 1), 0);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("tune_report_text");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, every_row_reads_back);
  tcase_add_test(tc, a_ways_only_check_reads_back);
  tcase_add_test(tc, an_auto_check_names_the_set_it_defends);
  tcase_add_test(tc, differences_only_near_the_line);
  tcase_add_test(tc, a_check_near_the_line_excuses_the_algorithms);
  tcase_add_test(tc, whole_steps_are_not_judged_by_slot);
  tcase_add_test(tc, auto_made_the_step_of_a_mode);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
