/* test_bench_launches.c: bench_graph_launches (bench/bench_kernel_names.h),
 * the hash mnist_bench --against-off compares two steps by, on graphs built
 * node by node on a real GPU from two empty kernels and a memset: the same
 * graph built twice hashes the same and counts its kernels; another grid,
 * block, dynamic shared memory size, kernel, node order, dependency, memset
 * value, or an added memset node each hash otherwise. (Programmatic edges
 * are hashed too; no case builds one here.) Skips (77) without a GPU. */
#include <check.h>
#include <cuda_runtime_api.h>

#include "bench/bench_empty.h"
#include "bench/bench_kernel_names.h"
#include "gpu/gpu_arch_check.h"
#include "tests/test_gpu.h"
#include "tests/test_util.h"

enum { MEMSET = -1, MAX_NODES = 4 };

/* One node: kernel 0 (bench_empty_function) or 1 (gpu_arch_probe_kernel)
 * with its grid, block and shared memory, or MEMSET with its value; `after`
 * the node it waits for (-1: none). */
typedef struct node_spec {
  int kernel;
  unsigned grid, block, shared;
  int value, after;
} node_spec;

/* The graph the specs describe, hashed; *kernels gets the count. */
static unsigned long long hash_of(const node_spec *spec, int count,
                                  int *kernels) {
  int *buffer; /* the memsets' target, 256 ints */
  ck_assert_int_eq(cudaMalloc((void **)&buffer, 256 * sizeof(int)),
                   cudaSuccess);
  cudaGraph_t graph;
  ck_assert_int_eq(cudaGraphCreate(&graph, 0), cudaSuccess);
  cudaGraphNode_t node[MAX_NODES];
  for (int i = 0; i < count; i++) {
    const node_spec *s = &spec[i];
    const cudaGraphNode_t *dep = s->after >= 0 ? &node[s->after] : NULL;
    size_t deps = s->after >= 0 ? 1 : 0;
    if (s->kernel == MEMSET) {
      struct cudaMemsetParams m = {.dst = buffer,
                                   .value = (unsigned)s->value,
                                   .elementSize = sizeof(int),
                                   .width = 256,
                                   .height = 1};
      ck_assert_int_eq(cudaGraphAddMemsetNode(&node[i], graph, dep, deps, &m),
                       cudaSuccess);
      continue;
    }
    struct cudaKernelNodeParams k = {
        .func = (void *)(s->kernel ? gpu_arch_probe_kernel()
                                   : bench_empty_function()),
        .gridDim = {s->grid, 1, 1},
        .blockDim = {s->block, 1, 1},
        .sharedMemBytes = s->shared};
    ck_assert_int_eq(cudaGraphAddKernelNode(&node[i], graph, dep, deps, &k),
                     cudaSuccess);
  }
  unsigned long long hash = 0;
  *kernels = bench_graph_launches(&hash, graph);
  cudaGraphDestroy(graph);
  cudaFree(buffer);
  return hash;
}

/* Kernel A, then kernel B after it. */
static const node_spec base[2] = {{0, 1, 32, 0, 0, -1}, {0, 2, 64, 0, 0, 0}};

START_TEST(the_same_graph_hashes_the_same) {
  int kernels = 0, again = 0;
  unsigned long long first = hash_of(base, 2, &kernels);
  ck_assert_int_eq(kernels, 2);
  ck_assert(first == hash_of(base, 2, &again));
  ck_assert_int_eq(again, 2);
}
END_TEST

/* Each case: base with one thing changed. */
static const struct {
  const char *what;
  node_spec spec[3];
  int count, kernels;
} changed[] = {
    {"grid", {{0, 1, 32, 0, 0, -1}, {0, 3, 64, 0, 0, 0}}, 2, 2},
    {"block", {{0, 1, 32, 0, 0, -1}, {0, 2, 128, 0, 0, 0}}, 2, 2},
    {"shared memory", {{0, 1, 32, 0, 0, -1}, {0, 2, 64, 1024, 0, 0}}, 2, 2},
    {"kernel", {{0, 1, 32, 0, 0, -1}, {1, 2, 64, 0, 0, 0}}, 2, 2},
    {"order", {{0, 2, 64, 0, 0, -1}, {0, 1, 32, 0, 0, 0}}, 2, 2},
    {"dependency", {{0, 1, 32, 0, 0, -1}, {0, 2, 64, 0, 0, -1}}, 2, 2},
    {"a memset between",
     {{0, 1, 32, 0, 0, -1}, {MEMSET, 0, 0, 0, 0, 0}, {0, 2, 64, 0, 0, 1}},
     3,
     2},
};

START_TEST(a_change_hashes_otherwise) {
  int kernels = 0;
  unsigned long long before = hash_of(base, 2, &kernels);
  unsigned long long after =
      hash_of(changed[_i].spec, changed[_i].count, &kernels);
  ck_assert_int_eq(kernels, changed[_i].kernels);
  ck_assert_msg(after != before, "another %s, the same hash", changed[_i].what);
}
END_TEST

START_TEST(a_memset_value_hashes_otherwise) {
  node_spec zero[3] = {base[0], {MEMSET, 0, 0, 0, 0, 0}, {0, 2, 64, 0, 0, 1}};
  node_spec seven[3] = {base[0], {MEMSET, 0, 0, 0, 7, 0}, {0, 2, 64, 0, 0, 1}};
  int kernels = 0;
  ck_assert(hash_of(zero, 3, &kernels) == hash_of(zero, 3, &kernels));
  ck_assert(hash_of(zero, 3, &kernels) != hash_of(seven, 3, &kernels));
}
END_TEST

int main(void) {
  test_require_gpu("bench_launches");
  Suite *s = suite_create("bench_launches");
  TCase *tc = tcase_create("hash");
  tcase_add_test(tc, the_same_graph_hashes_the_same);
  tcase_add_loop_test(tc, a_change_hashes_otherwise, 0,
                      (int)(sizeof changed / sizeof changed[0]));
  tcase_add_test(tc, a_memset_value_hashes_otherwise);
  suite_add_tcase(s, tc);
  return test_run_suite(s, 1);
}
