/* gpu_warm.c: the primary context made on a thread of its own, then the
 * caller's job there (gpu_warm.h). */
#include "gpu/gpu_warm.h"

#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdlib.h>

struct gpu_warm {
  pthread_t thread;
  int device;
  gpu_warm_job job;
  void *arg;
  int job_ran;
};

static void *warm(void *arg) {
  gpu_warm *w = arg;
  /* gpu_warm.h: a failure is met again, and reported, by the caller */
  if (cudaInitDevice(w->device, 0, 0) != cudaSuccess) {
    (void)cudaGetLastError();
    return NULL;
  }
  if (w->job) {
    w->job(w->arg);
    w->job_ran = 1;
  }
  return NULL;
}

gpu_warm *gpu_warm_create(int device, gpu_warm_job job, void *arg) {
  gpu_warm *w = malloc(sizeof *w);
  if (!w) return NULL;
  *w = (gpu_warm){.device = device, .job = job, .arg = arg};
  if (pthread_create(&w->thread, NULL, warm, w) != 0) {
    free(w);
    return NULL;
  }
  return w;
}

int gpu_warm_destroy(gpu_warm *warm) {
  if (!warm) return 0;
  pthread_join(warm->thread, NULL);
  int ran = warm->job_ran;
  free(warm);
  return ran;
}
