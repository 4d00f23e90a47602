/* graph_count.c: a CUDA graph as plain arrays, its order and its kernels
 * (graph_count.h). */
#include "bench/graph_count.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_check.h"

static int is_kernel(cudaGraphNode_t node) {
  enum cudaGraphNodeType type;
  return cudaGraphNodeGetType(node, &type) == cudaSuccess &&
         type == cudaGraphNodeTypeKernel;
}

static int node_index(const graph_table *g, cudaGraphNode_t node) {
  for (int i = 0; i < g->count; i++)
    if (g->node[i] == node) return i;
  return -1;
}

/* Fills g->kernel and g->edge from the graph's edge lists. */
static int table_fill(graph_table *g, cudaGraph_t graph, cudaGraphNode_t *from,
                      cudaGraphNode_t *to, cudaGraphEdgeData *data) {
  size_t nodes = (size_t)g->count, edges = (size_t)g->edge_count;
  CUDA_CHECK(cudaGraphGetNodes(graph, g->node, &nodes));
  /* Edge data must be read too: cuBLASLt's sm90 kernels may be joined by
   * programmatic-launch edges, and without it the query fails as lossy.
   * A graph without edges (one call captured alone) is not asked: the
   * query refuses arrays for zero edges (cudaErrorInvalidValue, seen on
   * the H200). */
  if (edges > 0) CUDA_CHECK(cudaGraphGetEdges(graph, from, to, data, &edges));
  g->count = (int)nodes;
  g->edge_count = (int)edges;
  for (int i = 0; i < g->count; i++)
    g->kernel[i] = is_kernel(g->node[i]);
  for (int e = 0; e < g->edge_count; e++) {
    g->edge[e] = (graph_edge){
        .from = node_index(g, from[e]),
        .to = node_index(g, to[e]),
        .programmatic = data[e].type == cudaGraphDependencyTypeProgrammatic};
    if (g->edge[e].from < 0 || g->edge[e].to < 0) return -1;
  }
  return 0;
}

int graph_table_read(graph_table *out, cudaGraph_t graph) {
  memset(out, 0, sizeof *out);
  size_t nodes = 0, edges = 0;
  CUDA_CHECK(cudaGraphGetNodes(graph, NULL, &nodes));
  CUDA_CHECK(cudaGraphGetEdges(graph, NULL, NULL, NULL, &edges));
  out->count = (int)nodes;
  out->edge_count = (int)edges;
  out->node = calloc(nodes + 1, sizeof *out->node);
  out->kernel = calloc(nodes + 1, sizeof *out->kernel);
  out->edge = calloc(edges + 1, sizeof *out->edge);
  cudaGraphNode_t *from = calloc(edges + 1, sizeof *from);
  cudaGraphNode_t *to = calloc(edges + 1, sizeof *to);
  cudaGraphEdgeData *data = calloc(edges + 1, sizeof *data);
  int status = out->node && out->kernel && out->edge && from && to && data
                   ? table_fill(out, graph, from, to, data)
                   : -1;
  free(from);
  free(to);
  free(data);
  if (status != 0) {
    fprintf(stderr, "graph_count: could not read the graph\n");
    graph_table_free(out);
  }
  return status;
}

void graph_table_free(graph_table *g) {
  free(g->node);
  free(g->kernel);
  free(g->edge);
  memset(g, 0, sizeof *g);
}

int graph_table_order(const graph_table *g, int *order) {
  int *waiting = calloc((size_t)g->count + 1, sizeof *waiting);
  int *placed = calloc((size_t)g->count + 1, sizeof *placed);
  int status = waiting && placed ? 0 : -1;
  for (int e = 0; status == 0 && e < g->edge_count; e++) {
    const graph_edge *edge = &g->edge[e];
    if (edge->from < 0 || edge->from >= g->count || edge->to < 0 ||
        edge->to >= g->count)
      status = -1;
    else
      waiting[edge->to]++;
  }
  /* Each round places the lowest-numbered node whose predecessors are all
   * placed; none left while nodes remain means a cycle. */
  for (int n = 0; status == 0 && n < g->count; n++) {
    int next = 0;
    while (next < g->count && (placed[next] || waiting[next] > 0))
      next++;
    if (next == g->count) {
      status = -1;
      break;
    }
    placed[next] = 1;
    order[n] = next;
    for (int e = 0; e < g->edge_count; e++)
      if (g->edge[e].from == next) waiting[g->edge[e].to]--;
  }
  free(waiting);
  free(placed);
  return status;
}

/* Adds kernel `k` to pred[0..*count) unless listed; -1 past `max`. */
static int add_pred(int *pred, int *programmatic, int *count, int max, int k,
                    int is_programmatic) {
  for (int i = 0; i < *count; i++)
    if (pred[i] == k) return 0;
  if (*count >= max) return -1;
  pred[*count] = k;
  programmatic[*count] = is_programmatic;
  (*count)++;
  return 0;
}

/* The kernels `node` waits for, appended; `depth` bounds the walk back
 * through non-kernel nodes (a DAG has no path longer than its nodes). */
static int collect_preds(const graph_table *g, int node, int *pred,
                         int *programmatic, int *count, int max, int depth) {
  if (depth > g->count) return -1;
  for (int e = 0; e < g->edge_count; e++) {
    const graph_edge *edge = &g->edge[e];
    if (edge->to != node) continue;
    int status = g->kernel[edge->from]
                     ? add_pred(pred, programmatic, count, max, edge->from,
                                edge->programmatic && depth == 0)
                     : collect_preds(g, edge->from, pred, programmatic, count,
                                     max, depth + 1);
    if (status != 0) return -1;
  }
  return 0;
}

int graph_kernel_preds(const graph_table *g, int node, int *pred,
                       int *programmatic, int max) {
  int count = 0;
  if (collect_preds(g, node, pred, programmatic, &count, max, 0) != 0)
    return -1;
  return count;
}

int graph_table_count_kernels(const graph_table *g, int *count,
                              int *critical_path) {
  int *order = calloc((size_t)g->count + 1, sizeof *order);
  int *depth = calloc((size_t)g->count + 1, sizeof *depth);
  int status = order && depth ? graph_table_order(g, order) : -1;
  *count = 0;
  *critical_path = 0;
  /* depth[v]: kernels on the longest chain ending at node v, settled in
   * topological order (every predecessor before v). */
  for (int n = 0; status == 0 && n < g->count; n++) {
    int v = order[n], longest = 0;
    for (int e = 0; e < g->edge_count; e++)
      if (g->edge[e].to == v && depth[g->edge[e].from] > longest)
        longest = depth[g->edge[e].from];
    depth[v] = longest + g->kernel[v];
    *count += g->kernel[v];
    if (depth[v] > *critical_path) *critical_path = depth[v];
  }
  free(order);
  free(depth);
  if (status != 0) fprintf(stderr, "graph_count: the graph has a cycle\n");
  return status;
}

int graph_count_kernels(cudaGraph_t graph, int *count, int *critical_path) {
  graph_table g;
  if (graph_table_read(&g, graph) != 0) return -1;
  int status = graph_table_count_kernels(&g, count, critical_path);
  graph_table_free(&g);
  return status;
}

int graph_count_step(trainer *t, int *count, int *critical_path) {
  cudaGraph_t graph = NULL;
  if (trainer_capture_step(t, &graph) != 0) return -1;
  int status = graph_count_kernels(graph, count, critical_path);
  cudaGraphDestroy(graph);
  return status;
}
