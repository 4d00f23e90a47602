/* sgd_step.cuh: one element of SGD with momentum (layers/sgd.h), shared by
 * sgd.cu and sgd_fp8.cu so that both compute the same FP32 master weights
 * bit for bit. The roundings are written out (CUDA's _rn intrinsics are
 * never contracted or reordered): g' = g * unscale (exact: a power of
 * two); v = fma(momentum, v, g'); p = fma(-lr, v, p). */
#ifndef MNIST_EPILOGS_SGD_STEP_CUH
#define MNIST_EPILOGS_SGD_STEP_CUH

/* The new p; *v updated when `velocity` (else p - lr g'). */
static __device__ __forceinline__ float sgd_step(float p, float *v, float g,
                                                 float lr, float momentum,
                                                 float unscale, bool velocity) {
  float step = __fmul_rn(g, unscale);
  if (velocity) {
    step = __fmaf_rn(momentum, *v, step);
    *v = step;
  }
  return __fmaf_rn(-lr, step, p);
}

#endif
