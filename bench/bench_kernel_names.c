/* bench_kernel_names.c: kernel node names of a CUDA graph
 * (bench_kernel_names.h). */
#include "bench/bench_kernel_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_trace_table.h"
#include "bench/graph_count.h"
#include "gpu/gpu_driver.h"
#include "train/tune_cache.h"

void bench_namer_init(bench_namer *d) {
  d->node_params = (PFN_cuGraphKernelNodeGetParams_v12000)gpu_driver_function(
      "cuGraphKernelNodeGetParams", 12000);
  d->func_name =
      (PFN_cuFuncGetName_v12030)gpu_driver_function("cuFuncGetName", 12030);
  d->kernel_name =
      (PFN_cuKernelGetName_v12030)gpu_driver_function("cuKernelGetName", 12030);
}

const char *bench_kernel_runtime_name(cudaGraphNode_t node) {
  /* A failing runtime call overwrites the last-error slot: an error
   * pending before (an earlier call's, left for its check) would be lost,
   * so with one pending nothing is asked. */
  if (cudaPeekAtLastError() != cudaSuccess) return NULL;
  const char *name = NULL;
  struct cudaKernelNodeParams rp;
  if (cudaGraphKernelNodeGetParams(node, &rp) != cudaSuccess || !rp.func ||
      cudaFuncGetName(&name, rp.func) != cudaSuccess) {
    cudaGetLastError(); /* only the query's own failure: none was pending */
    name = NULL;
  }
  return name;
}

/* The driver's name of kernel node n (NULL where it cannot say); p gets
 * the node's parameters. */
static const char *driver_kernel_name(const bench_namer *d, cudaGraphNode_t n,
                                      CUDA_KERNEL_NODE_PARAMS *p) {
  const char *name = NULL;
  memset(p, 0, sizeof *p);
  if (!d->node_params || d->node_params((CUgraphNode)n, p) != CUDA_SUCCESS)
    return NULL;
  if (p->func && d->func_name && d->func_name(&name, p->func) != CUDA_SUCCESS)
    return NULL;
  if (!p->func && p->kern && d->kernel_name &&
      d->kernel_name(&name, p->kern) != CUDA_SUCCESS)
    return NULL;
  return name;
}

void bench_kernel_name(char *out, const bench_namer *d, cudaGraphNode_t n) {
  CUDA_KERNEL_NODE_PARAMS p;
  const char *name = d->node_params ? driver_kernel_name(d, n, &p)
                                    : bench_kernel_runtime_name(n);
  trace_short_name(out, name ? name : "(name not available)");
}

/* *g = graph's nodes and edges, *order = a topological order of them
 * (g->count entries; the caller frees both). 0, or -1 with what failed in
 * *why (*order NULL where it was not allocated). */
static int read_ordered(graph_table *g, int **order, cudaGraph_t graph,
                        const char **why) {
  memset(g, 0, sizeof *g);
  *order = NULL;
  *why = "the graph's nodes and edges read";
  if (graph_table_read(g, graph) != 0) return -1;
  *order = calloc((size_t)g->count + 1, sizeof **order);
  *why = "host memory for the node order";
  if (!*order) return -1;
  *why = "a topological order (the graph has a cycle)";
  return graph_table_order(g, *order) == 0 ? 0 : -1;
}

int bench_graph_kernels(char *out, size_t size, cudaGraph_t graph) {
  graph_table g;
  int *order;
  const char *why;
  out[0] = '\0';
  int kernels = read_ordered(&g, &order, graph, &why);
  bench_namer namer;
  bench_namer_init(&namer);
  for (int i = 0; kernels >= 0 && i < g.count; i++) {
    if (!g.kernel[order[i]]) continue;
    char name[TRACE_NAME_CHARS + 1];
    bench_kernel_name(name, &namer, g.node[order[i]]);
    size_t used = strlen(out);
    snprintf(out + used, size - used, "%s%s", kernels ? " + " : "", name);
    kernels++;
  }
  if (kernels < 0)
    fprintf(stderr, "mnist_bench: a captured call's graph: expected %s\n", why);
  free(order);
  graph_table_free(&g);
  return kernels;
}

static int compare_ints(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Node order[i] of g into *hash: its type; a kernel's full name, grid,
 * block and dynamic shared memory; a memset's value, element size, width,
 * height and pitch (not its pointer); then where its direct predecessors
 * stand in `order` (pos: node -> place) and which edges are programmatic,
 * sorted. 0, or -1 with the failed query in why. */
static int hash_node(unsigned long long *hash, const bench_namer *d,
                     const graph_table *g, const int *order, const int *pos,
                     int i, const char **why) {
  int v = order[i];
  enum cudaGraphNodeType type;
  if (cudaGraphNodeGetType(g->node[v], &type) != cudaSuccess) {
    cudaGetLastError(); /* the query's own failure, said by the caller */
    *why = "cudaGraphNodeGetType";
    return -1;
  }
  int kind = (int)type;
  *hash = tune_fnv1a(*hash, &kind, sizeof kind);
  if (type == cudaGraphNodeTypeKernel) {
    CUDA_KERNEL_NODE_PARAMS p;
    const char *name = driver_kernel_name(d, g->node[v], &p);
    if (!name) {
      *why = "the driver's kernel node parameters or function name";
      return -1;
    }
    unsigned shape[7] = {p.gridDimX,  p.gridDimY,  p.gridDimZ,      p.blockDimX,
                         p.blockDimY, p.blockDimZ, p.sharedMemBytes};
    *hash = tune_fnv1a(*hash, name, strlen(name) + 1);
    *hash = tune_fnv1a(*hash, shape, sizeof shape);
  } else if (type == cudaGraphNodeTypeMemset) {
    struct cudaMemsetParams m;
    if (cudaGraphMemsetNodeGetParams(g->node[v], &m) != cudaSuccess) {
      cudaGetLastError();
      *why = "cudaGraphMemsetNodeGetParams";
      return -1;
    }
    unsigned long long set[5] = {m.value, m.elementSize, m.width, m.height,
                                 m.pitch};
    *hash = tune_fnv1a(*hash, set, sizeof set);
  }
  enum { MAX_PREDS = 64 }; /* a step's nodes wait for a few */
  int preds[MAX_PREDS], count = 0;
  for (int e = 0; e < g->edge_count; e++) {
    if (g->edge[e].to != v) continue;
    if (count == MAX_PREDS) {
      *why = "a node with at most 64 predecessors";
      return -1;
    }
    preds[count++] = 2 * pos[g->edge[e].from] + g->edge[e].programmatic;
  }
  qsort(preds, (size_t)count, sizeof preds[0], compare_ints);
  *hash = tune_fnv1a(*hash, &count, sizeof count);
  *hash = tune_fnv1a(*hash, preds, (size_t)count * sizeof preds[0]);
  return 0;
}

int bench_graph_launches(unsigned long long *hash, cudaGraph_t graph) {
  graph_table g;
  int *order;
  const char *why;
  *hash = TUNE_FNV_OFFSET;
  int kernels = read_ordered(&g, &order, graph, &why);
  int *pos = calloc((size_t)g.count + 1, sizeof *pos);
  if (kernels == 0 && !pos) {
    why = "host memory for the node positions";
    kernels = -1;
  }
  for (int i = 0; kernels == 0 && i < g.count; i++)
    pos[order[i]] = i;
  bench_namer namer;
  bench_namer_init(&namer);
  int failed = -1;
  for (int i = 0; kernels >= 0 && i < g.count; i++) {
    if (hash_node(hash, &namer, &g, order, pos, i, &why) != 0) {
      failed = i;
      kernels = -1;
    } else {
      kernels += g.kernel[order[i]];
    }
  }
  if (kernels < 0 && failed >= 0)
    fprintf(stderr,
            "bench_graph_launches: expected every node of a %d-node graph "
            "read, found %s failing at node %d of its order\n",
            g.count, why, failed);
  else if (kernels < 0)
    fprintf(stderr,
            "bench_graph_launches: expected %s, found none for a %d-node "
            "graph\n",
            why, g.count);
  free(order);
  free(pos);
  graph_table_free(&g);
  return kernels;
}
