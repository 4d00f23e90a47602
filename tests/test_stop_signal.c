/* test_stop_signal.c: the stop-signal rule (app/stop_signal.h), in a
 * forked child per test (it changes the signal dispositions; a signal that
 * kills the child fails the test): a caught signal is recorded, not
 * fatal; while held, signals stay pending and record nothing; released,
 * the first is recorded and the process lives on, even for a second
 * SIGINT that, unheld, would end it (SA_RESETHAND). Plain C. */
#include <check.h>
#include <signal.h>

#include "app/stop_signal.h"
#include "tests/test_util.h"

START_TEST(caught_signal_is_recorded) {
  stop_signal_catch();
  ck_assert_int_eq(stop_signal_received(), 0);
  stop_signal_release(); /* nothing held: a no-op */
  ck_assert_int_eq(raise(SIGTERM), 0);
  ck_assert_int_eq(stop_signal_received(), SIGTERM);
}
END_TEST

START_TEST(held_signals_wait_for_the_release) {
  stop_signal_catch();
  stop_signal_hold();
  ck_assert_int_eq(raise(SIGTERM), 0);
  ck_assert_int_eq(raise(SIGINT), 0);
  ck_assert_int_eq(stop_signal_received(), 0);
  sigset_t pending;
  ck_assert_int_eq(sigpending(&pending), 0);
  ck_assert(sigismember(&pending, SIGINT) && sigismember(&pending, SIGTERM));
  stop_signal_release();
  int first = stop_signal_received();
  ck_assert(first == SIGINT || first == SIGTERM);
  ck_assert_int_eq(sigpending(&pending), 0);
  ck_assert(!sigismember(&pending, SIGINT) && !sigismember(&pending, SIGTERM));
}
END_TEST

/* One SIGINT caught (its handler is spent), then a second one during a
 * commit: held, it is taken at the release, not fatal. */
START_TEST(second_signal_during_hold_is_not_fatal) {
  stop_signal_catch();
  ck_assert_int_eq(raise(SIGINT), 0);
  ck_assert_int_eq(stop_signal_received(), SIGINT);
  stop_signal_hold();
  ck_assert_int_eq(raise(SIGINT), 0);
  ck_assert_int_eq(raise(SIGINT), 0);
  stop_signal_release();
  stop_signal_release();
  ck_assert_int_eq(stop_signal_received(), SIGINT);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("stop_signal");
  TCase *tc = tcase_create("stop_signal");
  tcase_add_test(tc, caught_signal_is_recorded);
  tcase_add_test(tc, held_signals_wait_for_the_release);
  tcase_add_test(tc, second_signal_during_hold_is_not_fatal);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
