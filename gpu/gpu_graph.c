/* gpu_graph.c: CUDA-graph capture and instantiation (gpu_graph.h). */
#include "gpu/gpu_graph.h"

#include "gpu/gpu_check.h"

int gpu_graph_capture(cudaGraph_t *graph, cudaStream_t stream,
                      gpu_graph_enqueue_fn enqueue, void *arg) {
  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  cudaGraph_t captured = NULL;
  int enqueued = enqueue(arg);
  cudaError_t ended = cudaStreamEndCapture(stream, &captured);
  if (enqueued != 0) {
    /* The enqueue reported its error; a failed end of capture (the capture
     * was invalidated) would stay in the last-error slot: clear it. */
    if (ended == cudaSuccess && captured)
      cudaGraphDestroy(captured);
    else if (ended != cudaSuccess)
      cudaGetLastError();
    return -1;
  }
  CUDA_CHECK(ended);
  *graph = captured;
  return 0;
}

int gpu_graph_capture_exec(cudaGraphExec_t *exec, cudaStream_t stream,
                           unsigned long long flags,
                           gpu_graph_enqueue_fn enqueue, void *arg) {
  cudaGraph_t graph = NULL;
  if (gpu_graph_capture(&graph, stream, enqueue, arg) != 0) return -1;
  cudaError_t made = cudaGraphInstantiate(exec, graph, flags);
  cudaGraphDestroy(graph);
  CUDA_CHECK(made);
  return 0;
}
