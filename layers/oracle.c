/* oracle.c: the plain-C reference (see oracle.h). Written for clarity, not
 * speed: one loop nest per formula, double accumulation throughout. */
#include "layers/oracle.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lt/lt_gelu.h"

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
  const lt_shape *s = &c->shape;
  return s->transa ? c->a[(size_t)i * s->lda + p]
                   : c->a[(size_t)p * s->lda + i];
}

static double op_b(const oracle_call *c, int p, int j) {
  const lt_shape *s = &c->shape;
  return s->transb ? c->b[(size_t)p * s->ldb + j]
                   : c->b[(size_t)j * s->ldb + p];
}

double oracle_gelu(double z) {
  return 0.5 * z *
         (1.0 + tanh(LT_GELU_SCALE * (z + LT_GELU_CUBIC * z * z * z)));
}

double oracle_gelu_grad(double z) {
  double t = tanh(LT_GELU_SCALE * (z + LT_GELU_CUBIC * z * z * z));
  return 0.5 * (1.0 + t) + 0.5 * z * (1.0 - t * t) * LT_GELU_SCALE *
                               (1.0 + 3.0 * LT_GELU_CUBIC * z * z);
}

void oracle_matmul(const oracle_call *c) {
  const lt_shape *s = &c->shape;
  for (int j = 0; j < s->n; j++)
    for (int i = 0; i < s->m; i++) {
      double g = 0.0;
      for (int p = 0; p < s->k; p++)
        g += op_a(c, i, p) * op_b(c, p, j);
      double *d = &c->d[(size_t)j * s->ldd + i];
      switch (s->epilogue) {
      case LT_EPILOGUE_BIAS: *d = g + c->bias[i]; break;
      case LT_EPILOGUE_RELU_AUX_BIAS: {
        double z = g + c->bias[i];
        /* cuBLASLt: "not below 0": exact zeros pass, NaN passes as NaN */
        int bit = !(z < 0.0);
        set_mask_bit(c->aux, s->aux_ld, i, j, bit);
        *d = bit ? z : 0.0;
        break;
      }
      case LT_EPILOGUE_DRELU_BGRAD:
      case LT_EPILOGUE_DRELU:
        *d = oracle_mask_bit(c->aux, s->aux_ld, i, j) ? g : 0.0;
        break;
      case LT_EPILOGUE_GELU_AUX_BIAS: {
        double z = g + c->bias[i];
        c->gelu_input[(size_t)j * s->aux_ld + i] = z;
        *d = oracle_gelu(z);
        break;
      }
      case LT_EPILOGUE_DGELU_BGRAD:
      case LT_EPILOGUE_DGELU:
        *d = g * oracle_gelu_grad(c->gelu_input[(size_t)j * s->aux_ld + i]);
        break;
      default: *d = g; break;
      }
    }
  if (s->epilogue == LT_EPILOGUE_DRELU_BGRAD ||
      s->epilogue == LT_EPILOGUE_DGELU_BGRAD)
    for (int i = 0; i < s->m; i++) {
      double sum = 0.0;
      for (int j = 0; j < s->n; j++)
        sum += c->d[(size_t)j * s->ldd + i];
      c->bias_grad[i] = sum;
    }
  /* BGRADB: sums of op(B) (k, n) over k, one per column; BGRADA: of
   * op(A) (m, k) over k, one per row. */
  int bgrada = s->epilogue == LT_EPILOGUE_BGRADA;
  if (s->epilogue == LT_EPILOGUE_BGRADB || bgrada)
    for (int v = 0; v < lt_bias_grad_length(s); v++) {
      double sum = 0.0;
      for (int p = 0; p < s->k; p++)
        sum += bgrada ? op_a(c, v, p) : op_b(c, p, v);
      c->bias_grad[v] = sum;
    }
}

double oracle_xent(double *dlogits, int *correct, const double *logits, int ld,
                   const int *labels, int classes, int n) {
  double loss = 0.0;
  for (int j = 0; j < n; j++) {
    const double *z = logits + (size_t)j * ld;
    int argmax = 0;
    for (int c = 1; c < classes; c++)
      if (z[c] > z[argmax]) argmax = c;
    double sum = 0.0;
    for (int c = 0; c < classes; c++)
      sum += exp(z[c] - z[argmax]);
    double log_sum = log(sum) + z[argmax];
    loss += log_sum - z[labels[j]];
    *correct += argmax == labels[j];
    if (dlogits)
      for (int c = 0; c < classes; c++)
        dlogits[(size_t)j * ld + c] =
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

size_t oracle_preact_count(const mlp_layout *layout, int n) {
  size_t count = 0;
  for (int l = 0; l + 1 < layout->depth; l++)
    count += (size_t)lt_ld(layout->widths[l + 1]) * (size_t)n;
  return count;
}

/* After the hidden layer call `f` wrote D = ReLU(Z) and its own mask:
 * takes the decisions given instead, where they differ (D = Z where the
 * given bit is 1, else 0), and leaves them in `mask` for the backward
 * pass. */
static void apply_decisions(oracle_step *out, const oracle_call *f,
                            uint8_t *mask, const uint8_t *given) {
  const lt_shape *s = &f->shape;
  for (int j = 0; j < s->n; j++)
    for (int i = 0; i < s->m; i++) {
      int bit = oracle_mask_bit(given, s->aux_ld, i, j);
      if (bit == oracle_mask_bit(mask, s->aux_ld, i, j)) continue;
      double g = 0.0; /* as oracle_matmul sums it */
      for (int p = 0; p < s->k; p++)
        g += op_a(f, i, p) * op_b(f, p, j);
      double z = g + f->bias[i];
      f->d[(size_t)j * s->ldd + i] = bit ? z : 0.0;
      set_mask_bit(mask, s->aux_ld, i, j, bit);
      out->decisions_differ++;
    }
}

/* The input of layer l: x for the first, acts[l] for the others. */
static const double *layer_input(const double *x, double *const *acts, int l) {
  return l == 0 ? x : acts[l];
}

/* The forward pass: acts[l + 1] = layer l of its input, masks written; the
 * optional outputs copied out. */
static void forward(oracle_step *out, double **acts, uint8_t **mask,
                    double **gelu_in, const mlp_layout *layout,
                    const double *params, const double *x, int n) {
  int depth = layout->depth;
  const int *w = layout->widths;
  double *preacts = out->preacts;
  uint8_t *masks = out->masks;
  const uint8_t *decisions = out->decisions;
  int gelu = out->activation == LT_ACTIVATION_GELU;
  out->decisions_differ = 0;
  for (int l = 0; l < depth; l++) {
    int hidden = l + 1 < depth;
    oracle_call f = {
        .shape = lt_shape_activation(
            lt_shape_forward(w[l], w[l + 1], n, hidden), out->activation),
        .a = params + layout->w_offset[l],
        .b = layer_input(x, acts, l),
        .d = acts[l + 1],
        .bias = params + layout->b_offset[l],
        .aux = hidden && !gelu ? mask[l] : NULL,
        .gelu_input = hidden && gelu ? gelu_in[l] : NULL};
    oracle_matmul(&f);
    if (gelu) continue; /* no masks, no decisions, no preacts */
    if (hidden && preacts) {
      oracle_call z = f;
      z.shape.epilogue = LT_EPILOGUE_BIAS;
      z.shape.aux_ld = 0;
      z.d = preacts;
      z.aux = NULL;
      oracle_matmul(&z);
      preacts += (size_t)lt_ld(w[l + 1]) * n;
    }
    if (hidden && masks) {
      memcpy(masks, mask[l], lt_aux_bytes(w[l + 1], n));
      masks += lt_aux_bytes(w[l + 1], n);
    }
    if (hidden && decisions) {
      apply_decisions(out, &f, mask[l], decisions);
      decisions += lt_aux_bytes(w[l + 1], n);
    }
  }
  if (out->logits)
    memcpy(out->logits, acts[depth],
           (size_t)lt_ld(w[depth]) * n * sizeof(double));
}

/* The backward pass from dz[depth - 1] (the loss gradient at the logits). */
static void backward(double *grads, double *const *acts, double **dz,
                     uint8_t **mask, double **gelu_in, lt_activation activation,
                     const mlp_layout *layout, const double *params,
                     const double *x, int n) {
  int depth = layout->depth;
  const int *w = layout->widths;
  memset(grads, 0, layout->slab_floats * sizeof(double));
  for (int l = depth - 1; l >= 0; l--) {
    /* Weights: dWt = X dZ^T; the output layer also gets its bias gradient
     * here (BGRADB), hidden ones got theirs from the DRELU_BGRAD above. */
    int top = l == depth - 1;
    oracle_call dw = {.shape =
                          lt_shape_backward_weights(w[l], w[l + 1], n, top),
                      .a = layer_input(x, acts, l),
                      .b = dz[l],
                      .d = grads + layout->w_offset[l],
                      .bias_grad = top ? grads + layout->b_offset[l] : NULL};
    oracle_matmul(&dw);
    if (l == 0) break;
    /* Data: dZ_below = Wt dZ masked by the ReLU bits of the layer below,
     * and that layer's bias gradient. */
    int gelu = activation == LT_ACTIVATION_GELU;
    oracle_call dx = {
        .shape = lt_shape_activation(lt_shape_backward_data(w[l], w[l + 1], n),
                                     activation),
        .a = params + layout->w_offset[l],
        .b = dz[l],
        .d = dz[l - 1],
        .bias_grad = grads + layout->b_offset[l - 1],
        .aux = gelu ? NULL : mask[l - 1],
        .gelu_input = gelu ? gelu_in[l - 1] : NULL};
    oracle_matmul(&dx);
  }
}

/* The backward pass again on the absolute values of every operand (the
 * parameters, the input, the activations, the loss gradient; the same
 * masks): each gradient element's sum of |terms|. Overwrites acts and dz
 * (the real pass is done). Returns 0, or -1 when memory runs out. */
static int magnitudes(double *out, double **acts, double **dz, uint8_t **mask,
                      const mlp_layout *layout, const double *params,
                      const double *x, int n) {
  const int *w = layout->widths;
  size_t x_count = (size_t)lt_ld(w[0]) * n;
  double *abs_params = malloc(layout->slab_floats * sizeof(double));
  double *abs_x = malloc(x_count * sizeof(double));
  if (abs_params && abs_x) {
    for (size_t i = 0; i < layout->slab_floats; i++)
      abs_params[i] = fabs(params[i]);
    for (size_t i = 0; i < x_count; i++)
      abs_x[i] = fabs(x[i]);
    for (int l = 1; l <= layout->depth; l++)
      for (size_t i = 0; i < (size_t)lt_ld(w[l]) * n; i++) {
        acts[l][i] = fabs(acts[l][i]);
        if (l == layout->depth) dz[l - 1][i] = fabs(dz[l - 1][i]);
      }
    backward(out, acts, dz, mask, NULL, LT_ACTIVATION_RELU, layout, abs_params,
             abs_x, n);
  }
  int ok = abs_params && abs_x;
  free(abs_params);
  free(abs_x);
  return ok ? 0 : -1;
}

int oracle_mlp_step(oracle_step *out, const mlp_layout *layout,
                    const double *params, const double *x, const int *labels,
                    int n) {
  int depth = layout->depth;
  const int *w = layout->widths;
  /* acts[l], l >= 1: input of layer l, (w[l], n); acts[depth]: logits
   * (layer 0 reads x). dz[l]: gradient at layer l's output, (w[l + 1], n). */
  double *acts[MLP_MAX_LAYERS + 1] = {0}, *dz[MLP_MAX_LAYERS] = {0};
  uint8_t *mask[MLP_MAX_LAYERS] = {0};
  double *gelu_in[MLP_MAX_LAYERS] = {0};
  int gelu = out->activation == LT_ACTIVATION_GELU;
  int ok = !(gelu && out->grad_magnitudes); /* ReLU only */
  for (int l = 1; l <= depth; l++) {
    /* Zeroed: the padding rows (lt_ld) are never written. */
    acts[l] = calloc((size_t)lt_ld(w[l]) * n, sizeof(double));
    dz[l - 1] = calloc((size_t)lt_ld(w[l]) * n, sizeof(double));
    mask[l - 1] = calloc(lt_aux_bytes(w[l], n), 1);
    gelu_in[l - 1] =
        gelu ? calloc((size_t)lt_ld(w[l]) * n, sizeof(double)) : NULL;
    ok = ok && acts[l] && dz[l - 1] && mask[l - 1] && (!gelu || gelu_in[l - 1]);
  }
  if (ok) {
    out->correct = 0;
    forward(out, acts, mask, gelu_in, layout, params, x, n);
    out->loss_sum = oracle_xent(dz[depth - 1], &out->correct, acts[depth],
                                lt_ld(w[depth]), labels, w[depth], n);
    backward(out->grads, acts, dz, mask, gelu_in, out->activation, layout,
             params, x, n);
    if (out->grad_magnitudes)
      ok = magnitudes(out->grad_magnitudes, acts, dz, mask, layout, params, x,
                      n) == 0;
  }
  for (int l = 1; l <= depth; l++) {
    free(acts[l]);
    free(dz[l - 1]);
    free(mask[l - 1]);
    free(gelu_in[l - 1]);
  }
  return ok ? 0 : -1;
}
