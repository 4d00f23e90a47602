/* gpu_graph.h: capturing the work one function enqueues on a stream into
 * a CUDA graph, instantiated or not: the one way the trainer's epochs and
 * kernel count, --mode auto's timing (lt_auto.c) and the benchmark's timed
 * work are captured. */
#ifndef MNIST_EPILOGS_GPU_GRAPH_H
#define MNIST_EPILOGS_GPU_GRAPH_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues work on the stream being captured; 0, or -1 with the failure
 * already reported. */
typedef int (*gpu_graph_enqueue_fn)(void *arg);

/* Captures what enqueue(arg) launches on `stream` (capture mode
 * cudaStreamCaptureModeThreadLocal) into *graph, which the caller
 * destroys; the capture is ended even when enqueue fails. Returns 0, or
 * -1: enqueue's own failure, or a CUDA error printed to stderr as
 * CUDA_CHECK does (*graph is set only on success). */
int gpu_graph_capture(cudaGraph_t *graph, cudaStream_t stream,
                      gpu_graph_enqueue_fn enqueue, void *arg);

/* gpu_graph_capture, then the graph instantiated with `flags` (0, or
 * gpu_graph_flags of the context: node priorities) into *exec and
 * destroyed. Returns 0, or -1 as gpu_graph_capture does. */
int gpu_graph_capture_exec(cudaGraphExec_t *exec, cudaStream_t stream,
                           unsigned long long flags,
                           gpu_graph_enqueue_fn enqueue, void *arg);

#ifdef __cplusplus
}
#endif

#endif
