/* graph_count.h: how many kernels a captured CUDA graph launches, and how
 * many of them lie on its longest dependency chain (the rest overlap). */
#ifndef MNIST_EPILOGS_GRAPH_COUNT_H
#define MNIST_EPILOGS_GRAPH_COUNT_H

#include <cuda_runtime_api.h>

/* Kernel nodes of `graph`, and the most kernel nodes on one path along its
 * edges. Returns 0, or -1 with a message on stderr. */
int graph_count_kernels(cudaGraph_t graph, int *count, int *critical_path);

#endif
