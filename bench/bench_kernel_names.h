/* bench_kernel_names.h: the function names of a captured CUDA graph's
 * kernel nodes, through the driver (cuBLASLt launches its kernels through
 * the driver API, which the runtime may not name), for --trace-step's rows
 * and --alternatives' "kernels that ran"; and a hash of how a graph
 * launches, for --against-off's "same launches" (bench_off.h). */
#ifndef MNIST_EPILOGS_BENCH_KERNEL_NAMES_H
#define MNIST_EPILOGS_BENCH_KERNEL_NAMES_H

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>
#include <stddef.h>

/* The driver's name queries, looked up at run time (linking libcuda would
 * stop the programs starting without a driver); NULL where missing. */
typedef struct bench_namer {
  PFN_cuGraphKernelNodeGetParams_v12000 node_params;
  PFN_cuFuncGetName_v12030 func_name;
  PFN_cuKernelGetName_v12030 kernel_name;
} bench_namer;

void bench_namer_init(bench_namer *namer);

/* The kernel node's name, shortened (trace_short_name) into out
 * (TRACE_NAME_CHARS + 1 bytes): through the driver, else the runtime, else
 * "(name not available)". */
void bench_kernel_name(char *out, const bench_namer *namer,
                       cudaGraphNode_t node);

/* The name of the kernel a graph kernel node launches, asked of the
 * runtime (cudaGraphKernelNodeGetParams, cudaFuncGetName; bench_kernel_name
 * asks the driver first and comes here when it cannot): NULL when a query
 * fails. The runtime's last-error slot is left as found: a query's own
 * failure is cleared, and with an error already pending (an earlier
 * call's, for its own check) nothing is asked, since a failing query
 * would overwrite it: NULL. */
const char *bench_kernel_runtime_name(cudaGraphNode_t node);

/* The names of `graph`'s kernel nodes in topological order, joined by
 * " + ", into out (cut to `size`). Returns the kernel count, or -1 with a
 * message on stderr. */
int bench_graph_kernels(char *out, size_t size, cudaGraph_t graph);

/* A hash of how `graph` launches: each node in topological order (Kahn's,
 * lowest index first: graph_table_order) by its type; a kernel node by its
 * function's full name, grid and block sizes and dynamic shared memory, a
 * memset node by its value, element size, width, height and pitch (not
 * their arguments or pointers, which differ between two trainers of one
 * step); and each node's direct predecessors by their places in that
 * order, with which edges are programmatic. Two steps with equal hashes
 * run the same kernels with the same shapes in the same dependency graph
 * (a cuBLASLt algorithm's configuration shows in its kernel, grid and
 * shared memory; launch attributes other than the programmatic edges are
 * not read). Returns the kernel count with *hash set, or -1 (a node could
 * not be read; message on stderr). */
int bench_graph_launches(unsigned long long *hash, cudaGraph_t graph);

#endif
