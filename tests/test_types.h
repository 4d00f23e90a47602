/* test_types.h: the storage types of lt_dtype on the host, for the GPU
 * suites: rounding a float to BF16 or FP16 (round to nearest even, as the
 * GPU stores them), and packing arrays into their stored bytes and back.
 * Plain C (GCC's _Float16 for FP16). */
#ifndef MNIST_EPILOGS_TEST_TYPES_H
#define MNIST_EPILOGS_TEST_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "lt/lt_shape.h"

/* x rounded to `type` and back to float (x itself for F32). */
float test_round(lt_dtype type, float x);

/* Rounds x[0 .. count) in place to `type` (so the host keeps exactly the
 * values the GPU will hold). */
void test_round_all(lt_dtype type, float *x, size_t count);

/* malloc'd stored bytes of x[0 .. count) in `type`
 * (count * lt_dtype_size(type) bytes). */
void *test_pack(lt_dtype type, const float *x, size_t count);

/* out[i] = element i of `stored` (count elements of `type`) as a double. */
void test_unpack(double *out, lt_dtype type, const void *stored, size_t count);

/* Uploads x (count floats) in `type`: test_upload of test_pack. */
void *test_upload_as(lt_dtype type, const float *x, size_t count);

/* Downloads count elements of `type` as doubles into a malloc'd array. */
double *test_download_as(lt_dtype type, const void *device, size_t count);

#endif
