/* train_options.c: a strict parser for mnist_train's flags. */
#include "train_options.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void train_options_defaults(train_options *out) {
  memset(out, 0, sizeof *out);
  out->epochs = 5;
  out->batch = 128;
  out->lr = 0.05f;
  out->momentum = 0.9f;
  out->hidden[0] = 1024;
  out->hidden[1] = 1024;
  out->hidden_count = 2;
  out->seed = 1;
  out->graphs = 1;
  out->autotune = 1;
}

void train_options_usage(FILE *out, const char *program) {
  fprintf(out,
          "usage: %s [options]\n"
          "Trains a multilayer perceptron on MNIST with cuBLASLt epilogues.\n"
          "\n"
          "  --epochs N         passes over the training set (default 5)\n"
          "  --batch N          samples per step (default 128)\n"
          "  --lr X             SGD learning rate (default 0.05)\n"
          "  --schedule S       cosine (lr decays to 0 over the run, step by\n"
          "                     step) or constant (default cosine)\n"
          "  --momentum X       SGD momentum, 0 <= X < 1 (default 0.9)\n"
          "  --hidden LIST      hidden widths, e.g. 1024,1024 or 100; 'none'\n"
          "                     for none (default 1024,1024)\n"
          "  --seed N           initial weights and batch order (default 1)\n"
          "  --mode MODE        fused (cuBLASLt epilogues) or unfused (plain\n"
          "                     matmul + separate kernels) (default fused)\n"
          "  --data-dir DIR     MNIST-format files (default $MNIST_DIR, else\n"
          "                     data/mnist)\n"
          "  --tf32             TF32 tensor-core matmuls instead of FP32\n"
          "  --device N         CUDA device (default 0)\n"
          "  --log FILE         write one CSV row per epoch to FILE\n"
          "  --quiet            print only the final summary\n"
          "  --show-plans       after training, list every cuBLASLt plan: shape,\n"
          "                     epilogue, candidates tried, the one kept, times\n"
          "  --no-graphs        launch every kernel from the host instead of\n"
          "                     replaying a CUDA graph per epoch\n"
          "  --autotune MODE    how each cuBLASLt plan picks its algorithm:\n"
          "                     exact (fastest of those giving bitwise the\n"
          "                     heuristic's numbers: runs are reproducible),\n"
          "                     fast (fastest within rounding: may differ in\n"
          "                     the last bits between runs) or off (the\n"
          "                     heuristic's first choice) (default exact)\n"
          "  --check-flags      check the other flags and exit (0 when they\n"
          "                     parse); reads no data and needs no GPU\n"
          "  --check-data       load and validate the data, print the files\n"
          "                     read, and exit; needs no GPU\n"
          "  --help             this text\n"
          "\n"
          "Get the data with: scripts/download_mnist.sh data/mnist\n",
          program);
}

static int parse_long(long *out, const char *text, long low, long high) {
  if (!text || !*text) return -1;
  char *end = NULL;
  errno = 0;
  long value = strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || value < low || value > high) return -1;
  *out = value;
  return 0;
}

static int parse_float(float *out, const char *text, double low, double high,
                       int low_inclusive) {
  if (!text || !*text) return -1;
  char *end = NULL;
  errno = 0;
  double value = strtod(text, &end);
  if (errno != 0 || *end != '\0' || !isfinite(value) || value > high ||
      value < low || (!low_inclusive && value == low))
    return -1;
  *out = (float)value;
  return 0;
}

int train_options_parse_hidden(int *hidden, int *count, const char *text,
                               char *err, size_t err_size) {
  if (strcmp(text, "none") == 0) {
    *count = 0;
    return 0;
  }
  int n = 0;
  const char *at = text;
  while (1) {
    char piece[32];
    size_t len = strcspn(at, ",");
    long width = 0;
    if (len == 0 || len >= sizeof piece || n == MLP_MAX_LAYERS - 1) {
      snprintf(err, err_size,
               "--hidden: expected 1 to %d comma-separated widths (or "
               "'none'), found '%s'",
               MLP_MAX_LAYERS - 1, text);
      return -1;
    }
    memcpy(piece, at, len);
    piece[len] = '\0';
    if (parse_long(&width, piece, 1, MLP_MAX_WIDTH) != 0) {
      snprintf(err, err_size,
               "--hidden: expected widths from 1 to %d, found '%s' in '%s'",
               MLP_MAX_WIDTH, piece, text);
      return -1;
    }
    hidden[n++] = (int)width;
    if (at[len] == '\0') break;
    at += len + 1;
  }
  *count = n;
  return 0;
}

/* Flags without a value. */
static int parse_switch(train_options *o, const char *name) {
  if (strcmp(name, "tf32") == 0) o->tf32 = 1;
  else if (strcmp(name, "quiet") == 0) o->quiet = 1;
  else if (strcmp(name, "show-plans") == 0) o->show_plans = 1;
  else if (strcmp(name, "no-graphs") == 0) o->graphs = 0;
  else if (strcmp(name, "help") == 0) o->help = 1;
  else if (strcmp(name, "check-flags") == 0) o->check_flags = 1;
  else if (strcmp(name, "check-data") == 0) o->check_data = 1;
  else return 0;
  return 1;
}

static int is_valued(const char *name) {
  static const char *names[] = {"epochs", "batch", "lr", "momentum",
                                "hidden", "seed", "mode", "data-dir",
                                "schedule", "autotune",
                                "device", "log"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(name, names[i]) == 0) return 1;
  return 0;
}

static int parse_valued(train_options *o, const char *name, const char *value,
                        char *err, size_t err_size) {
  long number = 0;
  const char *expected = NULL;
  if (strcmp(name, "epochs") == 0) {
    if (parse_long(&number, value, 1, 100000) == 0) o->epochs = (int)number;
    else expected = "a whole number from 1 to 100000";
  } else if (strcmp(name, "batch") == 0) {
    if (parse_long(&number, value, 1, 65536) == 0) o->batch = (int)number;
    else expected = "a whole number from 1 to 65536";
  } else if (strcmp(name, "lr") == 0) {
    if (parse_float(&o->lr, value, 0.0, 100.0, 0) != 0)
      expected = "a number > 0 and <= 100";
  } else if (strcmp(name, "momentum") == 0) {
    if (parse_float(&o->momentum, value, 0.0, 0.999999, 1) != 0)
      expected = "a number >= 0 and < 1";
  } else if (strcmp(name, "hidden") == 0) {
    return train_options_parse_hidden(o->hidden, &o->hidden_count, value, err,
                                      err_size);
  } else if (strcmp(name, "seed") == 0) {
    char *end = NULL;
    errno = 0;
    unsigned long long seed = strtoull(value, &end, 10);
    if (*value && *value != '-' && errno == 0 && *end == '\0') o->seed = seed;
    else expected = "a whole number >= 0";
  } else if (strcmp(name, "mode") == 0) {
    if (strcmp(value, "fused") == 0) o->unfused = 0;
    else if (strcmp(value, "unfused") == 0) o->unfused = 1;
    else expected = "'fused' or 'unfused'";
  } else if (strcmp(name, "autotune") == 0) {
    if (strcmp(value, "off") == 0) o->autotune = 0;
    else if (strcmp(value, "exact") == 0) o->autotune = 1;
    else if (strcmp(value, "fast") == 0) o->autotune = 2;
    else expected = "'exact', 'fast' or 'off'";
  } else if (strcmp(name, "schedule") == 0) {
    if (strcmp(value, "cosine") == 0) o->constant_lr = 0;
    else if (strcmp(value, "constant") == 0) o->constant_lr = 1;
    else expected = "'cosine' or 'constant'";
  } else if (strcmp(name, "data-dir") == 0) {
    if (*value) o->data_dir = value;
    else expected = "a directory";
  } else if (strcmp(name, "device") == 0) {
    if (parse_long(&number, value, 0, 1023) == 0) o->device = (int)number;
    else expected = "a device number >= 0";
  } else if (strcmp(name, "log") == 0) {
    if (*value) o->log_path = value;
    else expected = "a file name";
  }
  if (expected) {
    snprintf(err, err_size, "--%s: expected %s, found '%s'", name, expected,
             value);
    return -1;
  }
  return 0;
}

int train_options_parse(train_options *out, int argc, char **argv, char *err,
                        size_t err_size) {
  train_options_defaults(out);
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (strncmp(arg, "--", 2) != 0) {
      snprintf(err, err_size, "expected a flag starting with --, found '%s'",
               arg);
      return -1;
    }
    char name[64];
    const char *eq = strchr(arg + 2, '=');
    size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
    if (len == 0 || len >= sizeof name) {
      snprintf(err, err_size, "unknown flag '%s'", arg);
      return -1;
    }
    memcpy(name, arg + 2, len);
    name[len] = '\0';
    if (!eq && parse_switch(out, name)) continue;
    if (!is_valued(name)) {
      snprintf(err, err_size, eq && parse_switch(&(train_options){0}, name)
                                  ? "flag '--%s' takes no value"
                                  : "unknown flag '--%s'",
               name);
      return -1;
    }
    const char *value = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
    if (!value) {
      snprintf(err, err_size, "--%s: expected a value, found none", name);
      return -1;
    }
    if (parse_valued(out, name, value, err, err_size) != 0) return -1;
  }
  return 0;
}

static int is_dir(const char *path) {
  struct stat info;
  return stat(path, &info) == 0 && S_ISDIR(info.st_mode);
}

int train_find_data_dir(char *out, size_t size, const char *given,
                        const char *source_dir) {
  const char *env = getenv("MNIST_DIR");
  char in_source[4096];
  snprintf(in_source, sizeof in_source, "%s/data/mnist", source_dir);
  const char *found = given                 ? given
                      : env && *env         ? env
                      : is_dir("data/mnist") ? "data/mnist"
                      : is_dir(in_source)   ? in_source
                                            : NULL;
  if (found) {
    snprintf(out, size, "%s", found);
    return 0;
  }
  fprintf(stderr,
          "no MNIST data: looked in data/mnist and %s (and $MNIST_DIR is "
          "unset)\n"
          "  fetch it with: %s/scripts/download_mnist.sh data/mnist\n"
          "  or point --data-dir at a folder holding the four idx files\n",
          in_source, source_dir);
  return -1;
}
