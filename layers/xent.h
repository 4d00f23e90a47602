/* xent.h: the loss: softmax cross-entropy over a batch of logits, its
 * gradient at the logits, and the count of correct predictions. */
#ifndef MNIST_EPILOGS_XENT_H
#define MNIST_EPILOGS_XENT_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "gpu/gpu_early.h"
#include "layers/fp8_cast.h"
#include "lt/lt_shape.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Over d_logits (classes, n), ld, of element type `type`, computed in
 * FP32: if d_dlogits, writes d_dlogits (classes, n), same ld and type,
 * = (softmax - onehot(label)) * grad_scale / n (grad_scale: the loss scale,
 * 1 unless FP16 needs one; a power of two, so the scaling is exact); adds
 * the summed (unscaled) loss to d_stats[0] and the number of argmax ==
 * label to d_stats[1] (+=). One thread per sample; a batch of up to 1024
 * is one block, which adds its sum; larger ones are blocks of 128 whose
 * sums the last block adds in block order: deterministic. d_scratch holds
 * xent_scratch_bytes(n) bytes, zeroed once before the first call (each
 * call leaves it zeroed); calls sharing it must not overlap. On `stream`,
 * starting early where `early` allows (gpu/gpu_early.h; NULL: never);
 * returns 0 or -1 (message on stderr). */
int xent_loss_grad(lt_dtype type, void *d_dlogits, double *d_stats,
                   const void *d_logits, int ld, const int *d_labels,
                   int classes, int n, float grad_scale, void *d_scratch,
                   gpu_early_cache *early, cudaStream_t stream);

/* The FP8 step's loss gradient cast in the loss kernel itself (delayed
 * scaling: the scale is known before; layers/mlp_fp8.h): each sample's
 * gradient column, as rounded to `type`, cast with *d_scale into
 * fp8_cast's layouts, its partial sums and amax recorded as fp8_cast
 * records them (fp8_cast.h). rows (a multiple of 16, >= classes) is the
 * output layer's width: rows classes .. rows - 1 of the gradient are 0. */
typedef struct xent_fp8 {
  uint8_t *d_dz8;    /* (rows, n), ld lt_ld_fp8(rows); NULL: not written */
  uint8_t *d_dz8t;   /* (lt_ld_fp8(n), rows), ld ld_t, padding rows 0 */
  int ld_t;          /* >= lt_ld_fp8(n) */
  float *d_partials; /* [fp8_cast_tiles(n)][rows] */
  const float *d_scale;
  fp8_meta *d_meta; /* amax (max-ed), counts, casts, scale_inv written */
  lt_fp8 format;
  int rows;
} xent_fp8;

/* xent_loss_grad, and with `cast` (NULL: none) the gradient's FP8 copies,
 * in the same kernel. */
int xent_loss_grad_cast(lt_dtype type, void *d_dlogits, double *d_stats,
                        const void *d_logits, int ld, const int *d_labels,
                        int classes, int n, float grad_scale, void *d_scratch,
                        const xent_fp8 *cast, gpu_early_cache *early,
                        cudaStream_t stream);

/* Over the same logits: d_pred[j] = argmax (the first of equal maxima, as
 * the loss counts hits) and, if d_prob, d_prob (classes, n) dense = the
 * softmax in FP32. On `stream`; returns 0 or -1. */
int xent_predict(lt_dtype type, int *d_pred, float *d_prob,
                 const void *d_logits, int ld, int classes, int n,
                 cudaStream_t stream);

/* Bytes of scratch for batches of up to max_n samples. */
size_t xent_scratch_bytes(int max_n);

#ifdef __cplusplus
}
#endif

#endif
