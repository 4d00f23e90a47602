/* test_tune_against_off.c: under --mode auto with a rule, the whole
 * search's end weighed against the ways --autotune off picks
 * (tune_weigh_against_off, train/tune_search.h), on the fake step: the
 * same set is not timed; a set that differs in ways only needs the way
 * floor, one with an algorithm moved the whole steps' floor; noise alone
 * keeps off's set; the set a check in a fresh context then defends
 * (tune_off_defended). Plain C. */
#include <check.h>
#include <string.h>

#include "tests/fake_step.h"
#include "tests/test_util.h"
#include "train/tune_search.h"

enum { ALGOS = 2, SLOTS = 4, FUSED = 1, UNFUSED = 2 };

/* Slots 0 and 1 algorithms (three candidates), 2 and 3 ways. */
static void make_mixed_slots(tune_slot *slots) {
  fake_slots(slots, SLOTS, 3);
  for (int s = ALGOS; s < SLOTS; s++) {
    slots[s].field = TUNE_FIELD_WAY;
    slots[s].ok[0] = 0;
  }
}

/* Off's set: every algorithm the first, both calls fused. */
static tune_config off_set(void) {
  tune_config c;
  memset(&c, 0, sizeof c);
  c.value[2] = c.value[3] = FUSED;
  return c;
}

/* tune_weigh_against_off of `tuned` on f; its end in *out, the log in *log.
 */
static void weigh(fake_step *f, const tune_config *tuned, tune_config *out,
                  tune_log *log) {
  tune_slot slots[SLOTS];
  make_mixed_slots(slots);
  tune_config off = off_set();
  tune_ops ops = {f, fake_measure};
  tune_log_init(log, 0.0); /* no budget: the comparison runs all the same */
  *out = *tuned;
  ck_assert_int_eq(tune_weigh_against_off(out, &off, slots, SLOTS, &ops, log),
                   0);
}

/* The search ended at off's set: nothing timed, the set kept. */
START_TEST(the_same_set_is_not_timed) {
  fake_step f = fake_step_make(SLOTS, 0.1, 0.0005, 3);
  tune_config tuned = off_set(), out;
  tune_log log;
  weigh(&f, &tuned, &out, &log);
  ck_assert_int_eq(f.measures, 0);
  ck_assert_int_eq(log.count, 0);
  ck_assert_mem_eq(&out, &tuned, sizeof out);
}
END_TEST

/* The tuned set: off's with slot `slot` at `value`, `gain` of the step
 * faster (negative: slower). Returns 1 when it replaced off's set (one
 * record, off's set -> tuned), else 0 (off's set kept). */
static int tuned_wins(int slot, int value, double gain, unsigned long seed) {
  fake_step f = fake_step_make(SLOTS, 0.1, 0.0002, seed);
  f.cost[slot][value] = -gain * 0.1;
  tune_config tuned = off_set(), out, off = off_set();
  tuned.value[slot] = (unsigned char)value;
  tune_log log;
  weigh(&f, &tuned, &out, &log);
  ck_assert_int_eq(log.count, 1);
  int wins = memcmp(&out, &tuned, sizeof out) == 0;
  if (!wins) ck_assert_mem_eq(&out, &off, sizeof out);
  fake_assert_last_step(&log, TUNE_OFF_SET, TUNE_TUNED, wins);
  return wins;
}

/* Ways only (every algorithm the first): off's replaced only past the way
 * floor (3 %). */
START_TEST(ways_need_the_way_floor) {
  ck_assert_msg(!tuned_wins(3, UNFUSED, 0.02, 5),
                "2 %% under the 3 %% way floor won");
  ck_assert_msg(tuned_wins(3, UNFUSED, 0.05, 5),
                "5 %% past the 3 %% way floor lost");
}
END_TEST

/* An algorithm moved (slot 0 at #2): judged by the whole steps' floor
 * (0.5 %). */
START_TEST(moved_algorithms_need_the_steps_floor) {
  ck_assert_msg(tuned_wins(0, 2, 0.02, 7), "2 %% past the 0.5 %% floor lost");
  ck_assert_msg(!tuned_wins(0, 2, -0.02, 7), "2 %% slower won");
  ck_assert_msg(!tuned_wins(0, 2, 0.002, 7), "0.2 %% under the floor won");
}
END_TEST

/* Equal sets and noise of 1 % of the step: off's set stays, over many
 * seeds (ways only and with an algorithm moved). */
START_TEST(noise_alone_keeps_offs_set) {
  int won = 0;
  for (unsigned long seed = 1; seed <= 50; seed++) {
    fake_step f = fake_step_make(SLOTS, 0.1, 0.001, seed);
    tune_config tuned = off_set(), out;
    tuned.value[2] = UNFUSED;
    tuned.value[1] = (unsigned char)(seed % 2 ? 1 : 0);
    tune_log log;
    weigh(&f, &tuned, &out, &log);
    won += memcmp(&out, &tuned, sizeof out) == 0;
  }
  ck_assert_int_le(won, 1);
}
END_TEST

/* The set the check in a fresh context defends after the weighing: off's
 * start and its narrow flag where off's set stayed, else off's set. */
START_TEST(the_check_defends_offs_start_or_offs_set) {
  tune_config off = off_set(), start, tuned = off_set(), got;
  start = off;
  start.value[3] = UNFUSED; /* off's search started elsewhere */
  int fused = -1;
  ck_assert_int_eq(tune_off_defended(&got, &fused, &off, &off, &start, 1),
                   TUNE_START);
  ck_assert_mem_eq(&got, &start, sizeof got);
  ck_assert_int_eq(fused, 1);
  tuned.value[0] = 2;
  ck_assert_int_eq(tune_off_defended(&got, &fused, &tuned, &off, &start, 1),
                   TUNE_OFF_SET);
  ck_assert_mem_eq(&got, &off, sizeof got);
  ck_assert_int_eq(fused, 0);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("tune_against_off");
  TCase *tc = tcase_create("tune_against_off");
  tcase_add_test(tc, the_same_set_is_not_timed);
  tcase_add_test(tc, ways_need_the_way_floor);
  tcase_add_test(tc, moved_algorithms_need_the_steps_floor);
  tcase_add_test(tc, noise_alone_keeps_offs_set);
  tcase_add_test(tc, the_check_defends_offs_start_or_offs_set);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
