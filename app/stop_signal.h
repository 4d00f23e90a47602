/* stop_signal.h: mnist_train's SIGINT/SIGTERM handling. Once caught, a
 * signal is only recorded; training reads it between epochs and stops
 * without writing anything. Plain C (POSIX sigaction). */
#ifndef MNIST_EPILOGS_STOP_SIGNAL_H
#define MNIST_EPILOGS_STOP_SIGNAL_H

/* From here on SIGINT and SIGTERM are recorded instead of ending the
 * program; a second one acts as usual (SA_RESETHAND): it ends it at once. */
void stop_signal_catch(void);

/* The signal (SIGINT or SIGTERM) that asked the program to stop since
 * stop_signal_catch, or 0 while none did. */
int stop_signal_received(void);

#endif
