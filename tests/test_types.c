/* test_types.c: see test_types.h. */
#include "tests/test_types.h"

#include <stdlib.h>
#include <string.h>

#include "tests/test_gpu.h"

static uint16_t bf16_bits(float x) {
  uint32_t bits;
  memcpy(&bits, &x, sizeof bits);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return (uint16_t)(bits >> 16 | 0x40);
  bits += 0x7FFFu + (bits >> 16 & 1u); /* round to nearest even */
  return (uint16_t)(bits >> 16);
}

static float bf16_value(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16;
  float x;
  memcpy(&x, &bits, sizeof x);
  return x;
}

static uint16_t f16_bits(float x) {
  _Float16 h = (_Float16)x;
  uint16_t bits;
  memcpy(&bits, &h, sizeof bits);
  return bits;
}

static float f16_value(uint16_t bits) {
  _Float16 h;
  memcpy(&h, &bits, sizeof h);
  return (float)h;
}

float test_round(lt_dtype type, float x) {
  return type == LT_DTYPE_BF16  ? bf16_value(bf16_bits(x))
         : type == LT_DTYPE_F16 ? f16_value(f16_bits(x))
                                : x;
}

void test_round_all(lt_dtype type, float *x, size_t count) {
  for (size_t i = 0; i < count; i++)
    x[i] = test_round(type, x[i]);
}

void *test_pack(lt_dtype type, const float *x, size_t count) {
  void *out = malloc(count * lt_dtype_size(type) + 1);
  if (type == LT_DTYPE_F32) {
    memcpy(out, x, count * sizeof(float));
    return out;
  }
  uint16_t *h = out;
  for (size_t i = 0; i < count; i++)
    h[i] = type == LT_DTYPE_BF16 ? bf16_bits(x[i]) : f16_bits(x[i]);
  return out;
}

void test_unpack(double *out, lt_dtype type, const void *stored, size_t count) {
  const float *f = stored;
  const uint16_t *h = stored;
  for (size_t i = 0; i < count; i++)
    out[i] = type == LT_DTYPE_F32    ? f[i]
             : type == LT_DTYPE_BF16 ? bf16_value(h[i])
                                     : f16_value(h[i]);
}

void *test_upload_as(lt_dtype type, const float *x, size_t count) {
  void *packed = test_pack(type, x, count);
  void *device = test_upload(packed, count * lt_dtype_size(type));
  free(packed);
  return device;
}

double *test_download_as(lt_dtype type, const void *device, size_t count) {
  void *stored = malloc(count * lt_dtype_size(type) + 1);
  double *out = malloc((count + 1) * sizeof(double));
  test_download(stored, device, count * lt_dtype_size(type));
  test_unpack(out, type, stored, count);
  free(stored);
  return out;
}
