/* stop_signal.c: see stop_signal.h. */
#include "app/stop_signal.h"

#include <signal.h>
#include <string.h>
#include <time.h>

/* The signal that asked the program to stop, 0 while none did. The one
 * global the house rules allow: a signal handler can reach nothing else.
 * Set only by on_stop_signal and stop_signal_release. */
static volatile sig_atomic_t stop_signal = 0;

static void on_stop_signal(int signo) {
  if (!stop_signal) stop_signal = signo;
}

/* SIGINT and SIGTERM get `handler` with `flags`. */
static void set_action(void (*handler)(int), int flags) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  action.sa_flags = flags;
  sigaction(SIGINT, &action, NULL);
  sigaction(SIGTERM, &action, NULL);
}

/* SIGINT and SIGTERM, as a set. */
static sigset_t both_signals(void) {
  sigset_t both;
  sigemptyset(&both);
  sigaddset(&both, SIGINT);
  sigaddset(&both, SIGTERM);
  return both;
}

void stop_signal_catch(void) {
  set_action(on_stop_signal, SA_RESETHAND | SA_RESTART);
}

void stop_signal_hold(void) {
  sigset_t both = both_signals();
  /* Blocked for this thread; one sent to the process can still reach a
   * thread of the CUDA runtime, so meanwhile any signal is only recorded
   * (no SA_RESETHAND: a second one is not fatal either). */
  set_action(on_stop_signal, SA_RESTART);
  sigprocmask(SIG_BLOCK, &both, NULL);
}

void stop_signal_release(void) {
  sigset_t both = both_signals(), pending;
  struct timespec now = {0, 0};
  /* The ones that came while held are taken here, not delivered: a second
   * one must not take the default action now. */
  while (sigpending(&pending) == 0 &&
         (sigismember(&pending, SIGINT) || sigismember(&pending, SIGTERM))) {
    int signo = sigtimedwait(&both, NULL, &now);
    if (signo <= 0) break;
    if (!stop_signal) stop_signal = signo;
  }
  /* The usual rule again: caught once; after one was, the next ends it. */
  set_action(stop_signal ? SIG_DFL : on_stop_signal,
             stop_signal ? 0 : SA_RESETHAND | SA_RESTART);
  sigprocmask(SIG_UNBLOCK, &both, NULL);
}

int stop_signal_received(void) {
  return stop_signal;
}
