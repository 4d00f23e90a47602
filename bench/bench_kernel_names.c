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

void bench_kernel_name(char *out, const bench_namer *d, cudaGraphNode_t n) {
  const char *name = NULL;
  CUDA_KERNEL_NODE_PARAMS p;
  memset(&p, 0, sizeof p);
  if (d->node_params && d->node_params((CUgraphNode)n, &p) == CUDA_SUCCESS) {
    if (p.func && d->func_name && d->func_name(&name, p.func) != CUDA_SUCCESS)
      name = NULL;
    else if (!p.func && p.kern && d->kernel_name &&
             d->kernel_name(&name, p.kern) != CUDA_SUCCESS)
      name = NULL;
  } else {
    name = bench_kernel_runtime_name(n);
  }
  trace_short_name(out, name ? name : "(name not available)");
}

int bench_graph_kernels(char *out, size_t size, cudaGraph_t graph) {
  graph_table g;
  memset(&g, 0, sizeof g);
  out[0] = '\0';
  if (graph_table_read(&g, graph) != 0) return -1;
  int *order = calloc((size_t)g.count + 1, sizeof *order);
  int kernels = order && graph_table_order(&g, order) == 0 ? 0 : -1;
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
    fprintf(stderr, "mnist_bench: could not order a captured call's graph\n");
  free(order);
  graph_table_free(&g);
  return kernels;
}

/* Node n's launch into *hash: 0, or -1 where the driver cannot say. */
static int hash_launch(unsigned long long *hash, const bench_namer *d,
                       cudaGraphNode_t n) {
  CUDA_KERNEL_NODE_PARAMS p;
  memset(&p, 0, sizeof p);
  const char *name = NULL;
  if (!d->node_params || d->node_params((CUgraphNode)n, &p) != CUDA_SUCCESS)
    return -1;
  if (p.func && d->func_name && d->func_name(&name, p.func) != CUDA_SUCCESS)
    name = NULL;
  else if (!p.func && p.kern && d->kernel_name &&
           d->kernel_name(&name, p.kern) != CUDA_SUCCESS)
    name = NULL;
  if (!name) return -1;
  unsigned shape[7] = {p.gridDimX,  p.gridDimY,  p.gridDimZ,      p.blockDimX,
                       p.blockDimY, p.blockDimZ, p.sharedMemBytes};
  *hash = tune_fnv1a(*hash, name, strlen(name) + 1);
  *hash = tune_fnv1a(*hash, shape, sizeof shape);
  return 0;
}

int bench_graph_launches(cudaGraph_t graph, unsigned long long *hash) {
  graph_table g;
  memset(&g, 0, sizeof g);
  *hash = TUNE_FNV_OFFSET;
  if (graph_table_read(&g, graph) != 0) return -1;
  int *order = calloc((size_t)g.count + 1, sizeof *order);
  int kernels = order && graph_table_order(&g, order) == 0 ? 0 : -1;
  bench_namer namer;
  bench_namer_init(&namer);
  for (int i = 0; kernels >= 0 && i < g.count; i++) {
    if (!g.kernel[order[i]]) continue;
    kernels =
        hash_launch(hash, &namer, g.node[order[i]]) == 0 ? kernels + 1 : -1;
  }
  if (kernels < 0)
    fprintf(stderr, "mnist_bench: could not read a step's kernel launches\n");
  free(order);
  graph_table_free(&g);
  return kernels;
}
