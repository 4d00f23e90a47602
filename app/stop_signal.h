/* stop_signal.h: mnist_train's SIGINT/SIGTERM handling. Once caught, a
 * signal is only recorded; training reads it between epochs and stops
 * without writing anything. The rule for the files it writes: from the
 * last look at the signal before the commits (--log, --save) until they
 * are done, SIGINT and SIGTERM are held (blocked), so that no signal, not
 * even a second one that would end the program at once, cuts a commit
 * short and leaves FILE.partial-XXXXXX; one that came meanwhile is
 * recorded when they are released, and the program then stops right
 * after the commits with its usual message and exit code (130, 143).
 * Plain C (POSIX sigaction, sigprocmask). */
#ifndef MNIST_EPILOGS_STOP_SIGNAL_H
#define MNIST_EPILOGS_STOP_SIGNAL_H

/* From here on SIGINT and SIGTERM are recorded instead of ending the
 * program; a second one acts as usual (SA_RESETHAND): it ends it at once. */
void stop_signal_catch(void);

/* Holds SIGINT and SIGTERM: blocked in this thread (sigprocmask) and,
 * for one that reaches another thread (the CUDA runtime's), only recorded,
 * never fatal, until stop_signal_release. Around the commits. */
void stop_signal_hold(void);

/* Takes any that came while held (recorded, if none was before), then
 * unblocks them under the usual rule: caught once if none was recorded,
 * else the next one ends the program. Safe to call twice. */
void stop_signal_release(void);

/* The signal (SIGINT or SIGTERM) that asked the program to stop since
 * stop_signal_catch, or 0 while none did. */
int stop_signal_received(void);

#endif
