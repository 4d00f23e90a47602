/* gpu_start_check.c: the GPU checks before training (gpu_start_check.h). */
#include "app/gpu_start_check.h"

#include "gpu/gpu_context.h"
#include "lt/lt_precision.h"

void gpu_start_check_init(gpu_start_check *check, int device,
                          gpu_precision precision, lt_epilogue_set epilogues) {
  *check = (gpu_start_check){
      .device = device, .precision = precision, .epilogues = epilogues};
}

void gpu_start_check_run(gpu_start_check *c) {
  c->why[0] = 0;
  c->available = gpu_device_available(c->why, sizeof c->why);
  c->verdict = c->available
                   ? lt_precision_check_device(c->why, sizeof c->why, c->device,
                                               c->precision, c->epilogues)
                   : 0;
}

void gpu_start_check_job(void *check) {
  gpu_start_check_run(check);
}
