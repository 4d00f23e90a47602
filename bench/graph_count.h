/* graph_count.h: a captured CUDA graph read into plain arrays (its nodes,
 * which of them are kernels, its edges and their types), its topological
 * order, the kernels each kernel waits for, and how many kernels it
 * launches and how many of them lie on its longest dependency chain (the
 * rest overlap). Everything but graph_table_read is plain C over the
 * arrays, so it can be tested on a hand-made table without a GPU. */
#ifndef MNIST_EPILOGS_GRAPH_COUNT_H
#define MNIST_EPILOGS_GRAPH_COUNT_H

#include <cuda_runtime_api.h>

#include "train/trainer.h"

typedef struct graph_edge {
  int from, to;     /* indices into graph_table.node */
  int programmatic; /* 1: a programmatic (early launch) edge, 0: full */
} graph_edge;

typedef struct graph_table {
  int count;             /* nodes */
  cudaGraphNode_t *node; /* [count], in cudaGraphGetNodes' order; NULL in
                            a hand-made table */
  int *kernel;           /* [count]: 1 for a kernel node */
  int edge_count;
  graph_edge *edge; /* [edge_count] */
} graph_table;

/* Reads `graph`'s nodes and edges (with their edge data) into *out, which
 * graph_table_free releases. Returns 0, or -1 with a message on stderr. */
int graph_table_read(graph_table *out, cudaGraph_t graph);
/* Frees what graph_table_read allocated; a no-op on a zeroed table. */
void graph_table_free(graph_table *g);

/* order[0..count) = the nodes in a topological order (Kahn's, lowest index
 * first among the ready ones). Returns 0, or -1 when an edge names no node
 * or the edges form a cycle. */
int graph_table_order(const graph_table *g, int *order);

/* The kernel nodes `node` waits for: its direct predecessors that are
 * kernels, and through any other node (memset, event) the kernels that one
 * waits for; programmatic[i] = 1 where pred[i] is a direct programmatic
 * edge. Each kernel is listed once. Returns the count, or -1 when more than
 * `max` would be listed. */
int graph_kernel_preds(const graph_table *g, int node, int *pred,
                       int *programmatic, int max);

/* Kernel nodes of the table, and the most kernel nodes on one path along
 * its edges. Returns 0, or -1 (cycle) with a message on stderr. */
int graph_table_count_kernels(const graph_table *g, int *count,
                              int *critical_path);

/* graph_table_read, then graph_table_count_kernels. Returns 0 or -1. */
int graph_count_kernels(cudaGraph_t graph, int *count, int *critical_path);

/* Kernels one full training step of `t` launches, counted from a captured
 * graph of that step (trainer_capture_step; cuBLASLt's own kernels
 * included), and how many of them lie on its longest dependency chain (the
 * rest overlap on the side lane). Returns 0 or -1. */
int graph_count_step(trainer *t, int *count, int *critical_path);

#endif
