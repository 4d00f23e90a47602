/* gpu_warm.c: the primary context made on a thread of its own
 * (gpu_warm.h). */
#include "gpu/gpu_warm.h"

#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdlib.h>

struct gpu_warm {
  pthread_t thread;
  int device;
};

static void *warm(void *arg) {
  gpu_warm *w = arg;
  (void)cudaInitDevice(w->device, 0, 0); /* gpu_warm.h: reported later */
  return NULL;
}

gpu_warm *gpu_warm_create(int device) {
  gpu_warm *w = malloc(sizeof *w);
  if (!w) return NULL;
  w->device = device;
  if (pthread_create(&w->thread, NULL, warm, w) != 0) {
    free(w);
    return NULL;
  }
  return w;
}

void gpu_warm_destroy(gpu_warm *warm) {
  if (!warm) return;
  pthread_join(warm->thread, NULL);
  free(warm);
}
