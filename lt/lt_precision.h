/* lt_precision.h: whether a precision runs on a device: the capability table
 * (gpu/gpu_arch.h) first, then cuBLASLt itself asked there for each
 * epilogue the run calls (lt_probe.h). Above both, so that the context
 * (gpu_arch_check) and the wrapper's probe do not call each other. */
#ifndef MNIST_EPILOGS_LT_PRECISION_H
#define MNIST_EPILOGS_LT_PRECISION_H

#include <stddef.h>

#include "gpu/gpu_options.h"
#include "lt/lt_probe.h"

/* gpu_precision_check (gpu/gpu_arch.h) for `device`, then cuBLASLt asked
 * there for each epilogue in `epilogues` (lt_probe_precision; the run's
 * set from lt_run_epilogues): 0 fine, 1 runs without tensor cores (msg:
 * one line), -1 refused (msg says why: the table, or the epilogue cuBLASLt
 * declined). A device that cannot be read gives 0: gpu_context_create
 * reports it. */
int lt_precision_check_device(char *msg, size_t msg_size, int device,
                              gpu_precision precision,
                              lt_epilogue_set epilogues);

#endif
