/* lt_gelu.h: the GELU the project uses, the tanh approximation
 *   GELU(z)  = z / 2 (1 + tanh(s (z + c z^3))),  s = sqrt(2 / pi), c = 0.044715
 *   GELU'(z) = (1 + t) / 2 + z (1 - t^2) s (1 + 3 c z^2) / 2,  t = tanh(...)
 * which is what cuBLASLt's GELU epilogues compute (measured on the H200,
 * fused FP32 over z in [-8, 8]: 5.3e-6 from this form, 4.7e-4 from the
 * erf form; test_lt_gelu prints both). The float
 * versions serve the unfused kernels (host and device); the oracle has
 * its own in double (layers/oracle.c), with the same constants; the FP8
 * cast computes GELU' from one exponential (fp8_gelu_grad,
 * layers/fp8_cast_load.cuh). */
#ifndef MNIST_EPILOGS_LT_GELU_H
#define MNIST_EPILOGS_LT_GELU_H

#include <math.h>

#define LT_GELU_SCALE 0.7978845608028654 /* sqrt(2 / pi) */
#define LT_GELU_CUBIC 0.044715

#ifdef __CUDACC__
#define LT_GELU_HD __host__ __device__
#else
#define LT_GELU_HD
#endif

static inline LT_GELU_HD float lt_gelu(float z) {
  float t =
      tanhf((float)LT_GELU_SCALE * (z + (float)LT_GELU_CUBIC * z * z * z));
  return 0.5f * z * (1.0f + t);
}

static inline LT_GELU_HD float lt_gelu_grad(float z) {
  float t =
      tanhf((float)LT_GELU_SCALE * (z + (float)LT_GELU_CUBIC * z * z * z));
  return 0.5f * (1.0f + t) + 0.5f * z * (1.0f - t * t) * (float)LT_GELU_SCALE *
                                 (1.0f + 3.0f * (float)LT_GELU_CUBIC * z * z);
}

#endif
