/* train_describe.c: what mnist_train --check-flags says would run
 * (train_options.h). */
#include <stdio.h>

#include "app/train_options.h"
#include "layers/fp8.h"

/* ", units padded to M" and, when a precision's rule changed what was
 * asked (FP8: multiples of 16), "(FP8's rule: ASKED -> M)"; "" unpadded. */
static void padding_text(char *out, size_t size, const train_options *o) {
  const trainer_config *c = &o->config;
  int multiple = c->pad_multiple > 0 ? c->pad_multiple : 8;
  out[0] = '\0';
  if (!c->pad_units) return;
  if (o->pad_asked == multiple) {
    snprintf(out, size, ", units padded to %d", multiple);
  } else {
    char asked[16] = "none";
    if (o->pad_asked) snprintf(asked, sizeof asked, "%d", o->pad_asked);
    snprintf(out, size,
             ", units padded to %d (%s's rule for m and k: %s -> %d)", multiple,
             gpu_precision_name(o->gpu.precision), asked, multiple);
  }
}

void train_options_describe(FILE *out, const train_options *o) {
  const trainer_config *c = &o->config;
  char name[256], padding[128], chain[128];
  trainer_config_name(name, sizeof name, c);
  padding_text(padding, sizeof padding, o);
  gpu_chain_format(chain, sizeof chain, o->gpu.chain);
  const char *precision = gpu_precision_name(o->gpu.precision);
  fprintf(out, "mnist_train: flags ok: would ");
  if (c->epochs == 0)
    fprintf(out,
            "evaluate the network of %s on the test split, %s mode, in %s "
            "and batches of %s",
            o->load_path, mlp_mode_name(c->mode),
            o->precision_given ? precision : "the file's precision",
            o->batch_given ? "--batch" : "the file's batch");
  else if (o->load_path)
    fprintf(out,
            "train the network of %s further (its widths and activation, and "
            "its mode and padding unless given), %s, batch %d, %d epochs",
            o->load_path, precision, c->batch, c->epochs);
  else
    fprintf(out,
            "train %s from random weights, %s, %s, %s mode%s, batch %d, %d "
            "epochs",
            name, precision, lt_activation_name(c->activation),
            mlp_mode_name(c->mode), padding, c->batch, c->epochs);
  if (c->epochs > 0 && o->steps >= 0)
    fprintf(out, " cut at %d optimiser steps", o->steps);
  if (c->epochs > 0)
    fprintf(out, ", lr %g (%s), momentum %g, seed %llu, graphs %s, chain %s",
            c->lr, c->cosine ? "cosine" : "constant", c->momentum, c->seed,
            c->graphs ? "on" : "off", chain);
  if (o->gpu.precision == GPU_PRECISION_FP8) {
    const char *names[3];
    fp8_recipe_names(&c->fp8, names);
    fprintf(out, ", fp8 %s, %s scaling, fast accumulation %s", names[0],
            names[1], names[2]);
  }
  fprintf(out, ", autotune %s", gpu_autotune_name(o->gpu.autotune));
  if (c->context_cycle) fprintf(out, ", context cycle");
  if (o->log_path) fprintf(out, "; log to %s", o->log_path);
  if (o->save_path) fprintf(out, "; saves to %s", o->save_path);
  fprintf(out, "; data from %s; device %d\n",
          o->data_dir ? o->data_dir : "$MNIST_DIR, else data/mnist",
          o->gpu.device);
}
