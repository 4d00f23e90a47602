/* stop_signal.c: see stop_signal.h. */
#include "app/stop_signal.h"

#include <signal.h>
#include <string.h>

/* The signal that asked the program to stop, 0 while none did. The one
 * global the house rules allow: a signal handler can reach nothing else.
 * Set only by on_stop_signal. */
static volatile sig_atomic_t stop_signal = 0;

static void on_stop_signal(int signo) {
  stop_signal = signo;
}

void stop_signal_catch(void) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND | SA_RESTART;
  sigaction(SIGINT, &action, NULL);
  sigaction(SIGTERM, &action, NULL);
}

int stop_signal_received(void) {
  return stop_signal;
}
