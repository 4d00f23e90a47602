/* oracle.c: the plain-C reference (see oracle.h). Written for clarity, not
 * speed: one loop nest per formula, double accumulation throughout. */
#include "oracle.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int oracle_mask_bit(const uint8_t *aux, int aux_ld, int i, int j) {
  return (aux[(size_t)j * (size_t)(aux_ld / 8) + (size_t)(i / 8)] >> (i % 8)) &
         1;
}

static void set_mask_bit(uint8_t *aux, int aux_ld, int i, int j, int bit) {
  uint8_t *byte = &aux[(size_t)j * (size_t)(aux_ld / 8) + (size_t)(i / 8)];
  *byte = (uint8_t)((*byte & ~(1u << (i % 8))) | ((unsigned)bit << (i % 8)));
}

/* op(A)[i, p] and op(B)[p, j] of the call. */
static double op_a(const oracle_call *c, int i, int p) {
  return c->transa ? c->a[(size_t)i * c->lda + p] : c->a[(size_t)p * c->lda + i];
}

static double op_b(const oracle_call *c, int p, int j) {
  return c->transb ? c->b[(size_t)p * c->ldb + j] : c->b[(size_t)j * c->ldb + p];
}

void oracle_matmul(const oracle_call *c) {
  for (int j = 0; j < c->n; j++)
    for (int i = 0; i < c->m; i++) {
      double g = 0.0;
      for (int p = 0; p < c->k; p++) g += op_a(c, i, p) * op_b(c, p, j);
      double *d = &c->d[(size_t)j * c->ldd + i];
      switch (c->epilogue) {
      case LT_EPILOGUE_BIAS: *d = g + c->bias[i]; break;
      case LT_EPILOGUE_RELU_AUX_BIAS: {
        double z = g + c->bias[i];
        /* cuBLASLt: "not below 0": exact zeros pass, NaN passes as NaN */
        int bit = !(z < 0.0);
        set_mask_bit(c->aux, c->aux_ld, i, j, bit);
        *d = bit ? z : 0.0;
        break;
      }
      case LT_EPILOGUE_DRELU_BGRAD:
        *d = oracle_mask_bit(c->aux, c->aux_ld, i, j) ? g : 0.0;
        break;
      default: *d = g; break;
      }
    }
  if (c->epilogue == LT_EPILOGUE_DRELU_BGRAD)
    for (int i = 0; i < c->m; i++) {
      double sum = 0.0;
      for (int j = 0; j < c->n; j++) sum += c->d[(size_t)j * c->ldd + i];
      c->bias[i] = sum;
    }
  if (c->epilogue == LT_EPILOGUE_BGRADB)
    for (int j = 0; j < c->n; j++) {
      double sum = 0.0;
      for (int p = 0; p < c->k; p++) sum += op_b(c, p, j);
      c->bias[j] = sum;
    }
}

double oracle_xent(double *dlogits, int *correct, const double *logits,
                   const int *labels, int classes, int n) {
  double loss = 0.0;
  for (int j = 0; j < n; j++) {
    const double *z = logits + (size_t)j * classes;
    int argmax = 0;
    for (int c = 1; c < classes; c++)
      if (z[c] > z[argmax]) argmax = c;
    double sum = 0.0;
    for (int c = 0; c < classes; c++) sum += exp(z[c] - z[argmax]);
    double log_sum = log(sum) + z[argmax];
    loss += log_sum - z[labels[j]];
    *correct += argmax == labels[j];
    if (dlogits)
      for (int c = 0; c < classes; c++)
        dlogits[(size_t)j * classes + c] =
            (exp(z[c] - log_sum) - (c == labels[j])) / n;
  }
  return loss;
}

size_t oracle_mask_bytes(const mlp_layout *layout, int n) {
  size_t bytes = 0;
  for (int l = 0; l + 1 < layout->depth; l++)
    bytes += lt_aux_bytes(layout->widths[l + 1], n);
  return bytes;
}

int oracle_mlp_step(double *grads, double *loss_sum, int *correct,
                    uint8_t *masks, const mlp_layout *layout,
                    const double *params, const double *x, const int *labels,
                    int n) {
  int depth = layout->depth;
  const int *w = layout->widths;
  /* acts[l]: input of layer l, (w[l], n); acts[depth]: logits.
   * dz[l]: gradient at layer l's output, (w[l + 1], n). */
  double *acts[MLP_MAX_LAYERS + 1] = {0}, *dz[MLP_MAX_LAYERS] = {0};
  uint8_t *mask[MLP_MAX_LAYERS] = {0};
  int ok = 1;
  for (int l = 1; l <= depth; l++) {
    acts[l] = malloc((size_t)w[l] * n * sizeof(double));
    dz[l - 1] = malloc((size_t)w[l] * n * sizeof(double));
    mask[l - 1] = calloc(lt_aux_bytes(w[l], n), 1);
    ok = ok && acts[l] && dz[l - 1] && mask[l - 1];
  }
  if (ok) {
    acts[0] = (double *)x;
    for (int l = 0; l < depth; l++) {
      int hidden = l + 1 < depth;
      oracle_call f = {w[l + 1], n, w[l], 1, 0, params + layout->w_offset[l],
                       w[l], acts[l], w[l], acts[l + 1], w[l + 1],
                       hidden ? LT_EPILOGUE_RELU_AUX_BIAS : LT_EPILOGUE_BIAS,
                       (double *)params + layout->b_offset[l], mask[l],
                       lt_aux_ld(w[l + 1])};
      oracle_matmul(&f);
    }
    *loss_sum = oracle_xent(dz[depth - 1], correct, acts[depth], labels,
                            w[depth], n);
    memset(grads, 0, layout->slab_floats * sizeof(double));
    for (int l = depth - 1; l >= 0; l--) {
      /* Weights: dWt (in, out) = X (in, n) dZ^T; the output layer also
       * gets its bias gradient here (BGRADB), hidden ones got theirs from
       * the DRELU_BGRAD of the layer above. */
      oracle_call dw = {w[l], w[l + 1], n, 0, 1, acts[l], w[l], dz[l],
                        w[l + 1], grads + layout->w_offset[l], w[l],
                        l == depth - 1 ? LT_EPILOGUE_BGRADB : LT_EPILOGUE_DEFAULT,
                        l == depth - 1 ? grads + layout->b_offset[l] : NULL,
                        NULL, 0};
      oracle_matmul(&dw);
      if (l == 0) break;
      /* Data: dZ_below (in, n) = Wt (in, out) dZ, masked by the ReLU bits
       * of the layer below, and that layer's bias gradient. */
      oracle_call dx = {w[l], n, w[l + 1], 0, 0, params + layout->w_offset[l],
                        w[l], dz[l], w[l + 1], dz[l - 1], w[l],
                        LT_EPILOGUE_DRELU_BGRAD,
                        grads + layout->b_offset[l - 1], mask[l - 1],
                        lt_aux_ld(w[l])};
      oracle_matmul(&dx);
    }
    if (masks)
      for (int l = 0; l + 1 < depth; l++) {
        size_t bytes = lt_aux_bytes(w[l + 1], n);
        memcpy(masks, mask[l], bytes);
        masks += bytes;
      }
  }
  for (int l = 1; l <= depth; l++) {
    free(acts[l]);
    free(dz[l - 1]);
    free(mask[l - 1]);
  }
  return ok ? 0 : -1;
}
