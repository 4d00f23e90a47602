/* train_usage.c: mnist_train's --help text (train_options.h), with the
 * defaults of trainer_config_defaults and gpu_options_defaults filled in. */
#include <stdio.h>
#include <string.h>

#include "app/train_options.h"
#include "train/step_tune.h"

/* "1024,1024" (or "none"): the hidden widths of `c`. */
static void hidden_text(char *out, size_t size, const trainer_config *c) {
  size_t at = 0;
  snprintf(out, size, "none");
  for (int l = 1; l < c->depth && at < size; l++)
    at += (size_t)snprintf(out + at, size - at, l > 1 ? ",%d" : "%d",
                           c->widths[l]);
}

/* `text` wrapped at spaces into lines of at most `width` columns, each
 * indented by `indent` spaces. */
static void print_wrapped(FILE *out, const char *text, int indent, int width) {
  int column = 0;
  while (*text) {
    int word = (int)strcspn(text, " ");
    if (column > 0 && column + 1 + word > width) {
      fputc('\n', out);
      column = 0;
    }
    column += column ? fprintf(out, " ") : fprintf(out, "%*s", indent, "");
    column += fprintf(out, "%.*s", word, text);
    text += word;
    text += strspn(text, " ");
  }
  if (column > 0) fputc('\n', out);
}

void train_options_usage(FILE *out, const char *program) {
  const trainer_config c = trainer_config_defaults();
  const gpu_options g = gpu_options_defaults();
  char hidden[128];
  hidden_text(hidden, sizeof hidden, &c);
  fprintf(out,
          "usage: %s [options]\n"
          "Trains a multilayer perceptron on MNIST with cuBLASLt epilogues.\n"
          "\n"
          "  --epochs N         passes over the training set (default %d); 0\n"
          "                     with --load: evaluate only (loss, accuracy,\n"
          "                     per-class accuracy, confusion matrix), in the\n"
          "                     file's batch and precision unless --batch or\n"
          "                     --precision is given; the flags only training\n"
          "                     reads are refused with it:\n",
          program, c.epochs);
  char refused[512];
  train_options_training_flags(refused, sizeof refused);
  print_wrapped(out, refused, 21, 73);
  fprintf(
      out,
      "  --steps N          stop after N optimiser steps (the schedule\n"
      "                     still spans --epochs; launched from the host)\n"
      "  --order O          shuffle (a fresh order each epoch) or file\n"
      "                     (batches in file order, no shuffle) (default\n"
      "                     shuffle)\n"
      "  --save FILE        after training, the parameters as safetensors\n"
      "                     (PyTorch nn.Sequential names), written to a\n"
      "                     temporary file and renamed\n"
      "  --load FILE        start from a checkpoint (--save's format); its\n"
      "                     widths and activation are the run's: --hidden\n"
      "                     and --activation, when given, must agree; its\n"
      "                     mode and padding too, unless --mode, --pad-units\n"
      "                     or --pad-to is given\n"
      "  --batch N          samples per step (default %d)\n"
      "  --lr X             SGD learning rate (default %g)\n"
      "  --schedule S       cosine (lr decays to 0 over the run, step by\n"
      "                     step) or constant (default %s)\n"
      "  --momentum X       SGD momentum, 0 <= X < 1 (default %g)\n"
      "  --hidden LIST      1 to %d widths of 1 to %d units each, e.g.\n"
      "                     1024,1024 or 100; 'none' for none (default\n"
      "                     %s)\n"
      "  --seed N           initial weights and batch order (default %llu)\n"
      "  --mode MODE        fused (cuBLASLt epilogues), unfused (plain\n"
      "                     matmul + separate kernels) or auto (per call\n"
      "                     the fastest of fused, unfused and, for the\n"
      "                     data gradients, split (DRELU/DGELU in the\n"
      "                     GEMM, then row sums), timed on this GPU before\n"
      "                     training) (default %s)\n"
      "  --precision P      matmul precision: fp32, tf32, bf16, fp16 or\n"
      "                     fp8; bf16, fp16 and fp8 keep FP32 master\n"
      "                     weights and momentum (default %s)\n"
      "  --fp8-format F     with fp8: hybrid (E4M3 weights and activations,\n"
      "                     E5M2 gradients) or e4m3 (all E4M3) (default\n"
      "                     hybrid)\n"
      "  --fp8-scaling S    with fp8: delayed (scales from the amax of the\n"
      "                     last 16 steps) or current (each tensor's own\n"
      "                     amax, one more read) (default delayed)\n"
      "  --fp8-fast-accum G with fp8: the GEMMs with cuBLASLt's fast FP8\n"
      "                     accumulation: forward, all or none (default\n"
      "                     forward); with --epochs 0 --load, the --fp8-*\n"
      "                     flags override the checkpoint's recipe\n"
      "  --loss-scale S     loss-gradient scale, a power of two (default\n"
      "                     %g for fp16, 1 otherwise)\n"
      "  --activation A     hidden layers' activation: relu (RELU_AUX_BIAS,\n"
      "                     DRELU_BGRAD) or gelu (GELU_AUX_BIAS, DGELU_BGRAD)\n"
      "                     (default relu)\n"
      "  --pad-units        run every layer at a width rounded up to 8\n"
      "                     (784-100-10 as 784-104-16) with extra units\n"
      "                     that stay zero: the same function, on the\n"
      "                     GEMM kernels that need 16-byte widths\n"
      "  --pad-to N         --pad-units to a multiple of N: 8, 16 or 32\n"
      "                     (784-104-16, 784-112-16, 784-128-32)\n"
      "  --chain LIST       how the step's kernels are chained, for A/B\n"
      "                     timing (the numbers stay bit for bit the\n"
      "                     same): none, all, or a comma-separated list\n"
      "                     of side-partials (unfused bias-gradient sums\n"
      "                     finished on the side lane), sgd-lane (first\n"
      "                     layer's weight gradient on SGD's lane),\n"
      "                     priorities (main lane first, graph node\n"
      "                     priorities), trigger (kernels let the next one\n"
      "                     launch early) (default none)\n"
      "  --data-dir DIR     MNIST-format files (default $MNIST_DIR, else\n"
      "                     data/mnist)\n"
      "  --device N         CUDA device (default %d)\n"
      "  --log FILE         one CSV row per epoch, written to a temporary\n"
      "                     file beside FILE and renamed over FILE when\n"
      "                     training ends (also when it diverges); a run\n"
      "                     that fails before training leaves FILE as it\n"
      "                     was; FILE may not be --save's, --load's or a\n"
      "                     data file\n"
      "  --quiet            print only the final summary (and, in fp8, what\n"
      "                     the casts saturated, flushed or met as NaN)\n"
      "  --show-plans       after training, list every cuBLASLt plan (shape,\n"
      "                     epilogue, candidates offered and computing the\n"
      "                     same numbers) and what the step tuner chose: its\n"
      "                     fingerprint, each call's choice, the evidence\n"
      "  --no-graphs        launch every kernel from the host instead of\n"
      "                     replaying a CUDA graph per epoch\n"
      "  --autotune MODE    which cuBLASLt candidates the step tuner may\n"
      "                     choose, timing the whole training step: exact\n"
      "                     (those computing bitwise the heuristic's first\n"
      "                     choice's numbers: the run prints what off\n"
      "                     prints), fast (within rounding: the last bits\n"
      "                     may differ) or off (the first choice; --mode\n"
      "                     auto still times the ways) (default %s)\n"
      "  --tune-cache MODE  use (read the step tuner's choices from the\n"
      "                     tuning cache, tune and write them when absent),\n"
      "                     refresh (tune, write over) or off (default use)\n"
      "  --tune-cache-dir DIR\n"
      "                     the cache's folder (default\n"
      "                     $MNIST_TUNE_CACHE_DIR, $XDG_CACHE_HOME/\n"
      "                     mnist-epilogs or ~/.cache/mnist-epilogs)\n"
      "  --tune-budget MS   GPU time the step tuner may spend timing steps\n"
      "                     (default %.0f)\n"
      "  --tune-here        time the candidates in the training's own CUDA\n"
      "                     context (default: in one of its own, so the\n"
      "                     training loads only the kernels it runs)\n"
      "  --no-context-cycle\n"
      "                     no CUDA context made and destroyed after the\n"
      "                     warm-up (by default one is, about 0.2 s, as a\n"
      "                     first run's step tuner does: on the H200 a run\n"
      "                     that read its choices from the cache, or ran\n"
      "                     --autotune off, trained the default network\n"
      "                     0.8 %% slower without it, 7 %% in fp8);\n"
      "                     --context-cycle: the default\n"
      "  --check-flags      check the other flags and the --log and --save\n"
      "                     paths, say what would run, and exit (0 when they\n"
      "                     pass, else 2); reads no data, needs no GPU and\n"
      "                     leaves no file\n"
      "  --check-data       load and validate the data, print the files\n"
      "                     read, and exit; needs no GPU\n"
      "  --help             this text\n"
      "Each flag at most once. Exit 2: the command line cannot work (a bad\n"
      "flag, a flag refused with another or by this GPU, an output path\n"
      "that cannot be written or names an input); 1: a bad input file, no\n"
      "GPU, a failure while running.\n"
      "\n"
      "Get the data with: scripts/download_mnist.sh data/mnist\n",
      c.batch, c.lr, c.cosine ? "cosine" : "constant", c.momentum,
      MLP_MAX_LAYERS - 1, MLP_MAX_WIDTH, hidden, c.seed, mlp_mode_name(c.mode),
      gpu_precision_name(g.precision), (double)GPU_FP16_LOSS_SCALE, g.device,
      gpu_autotune_name(g.autotune), STEP_TUNE_BUDGET_MS);
}
