/* graph_count.c: kernels in a CUDA graph (graph_count.h). */
#include "train/graph_count.h"

#include <stdio.h>
#include <stdlib.h>

#include "gpu/gpu_check.h"

static int is_kernel(cudaGraphNode_t node) {
  enum cudaGraphNodeType type;
  return cudaGraphNodeGetType(node, &type) == cudaSuccess &&
         type == cudaGraphNodeTypeKernel;
}

/* Kernel count and longest chain of kernels (longest path over the
 * graph's edges, counting kernel nodes only). */
int graph_count_kernels(cudaGraph_t graph, int *count, int *critical_path) {
  size_t nodes = 0, edges = 0;
  CUDA_CHECK(cudaGraphGetNodes(graph, NULL, &nodes));
  CUDA_CHECK(cudaGraphGetEdges(graph, NULL, NULL, NULL, &edges));
  cudaGraphNode_t *list = calloc(nodes + 1, sizeof *list);
  cudaGraphNode_t *from = calloc(edges + 1, sizeof *from);
  cudaGraphNode_t *to = calloc(edges + 1, sizeof *to);
  /* Edge data must be read too: cuBLASLt's sm90 kernels may be joined by
   * programmatic-launch edges, and without it the query fails as lossy. */
  cudaGraphEdgeData *data = calloc(edges + 1, sizeof *data);
  int *depth = calloc(nodes + 1, sizeof *depth);
  int status = list && from && to && data && depth ? 0 : -1;
  if (status == 0 &&
      (cudaGraphGetNodes(graph, list, &nodes) != cudaSuccess ||
       cudaGraphGetEdges(graph, from, to, data, &edges) != cudaSuccess))
    status = -1;
  *count = 0;
  *critical_path = 0;
  for (size_t i = 0; status == 0 && i < nodes; i++) {
    depth[i] = is_kernel(list[i]);
    *count += depth[i];
  }
  /* depth[i]: kernels on the longest chain ending at node i. Relaxing all
   * edges `nodes` times settles every path of a DAG. */
  for (size_t pass = 0; status == 0 && pass < nodes; pass++)
    for (size_t e = 0; e < edges; e++) {
      size_t a = 0, b = 0;
      while (a < nodes && list[a] != from[e])
        a++;
      while (b < nodes && list[b] != to[e])
        b++;
      if (a < nodes && b < nodes && depth[a] + is_kernel(list[b]) > depth[b])
        depth[b] = depth[a] + is_kernel(list[b]);
    }
  for (size_t i = 0; status == 0 && i < nodes; i++)
    if (depth[i] > *critical_path) *critical_path = depth[i];
  free(list);
  free(from);
  free(to);
  free(data);
  free(depth);
  if (status != 0) fprintf(stderr, "graph_count: could not read the graph\n");
  return status;
}
