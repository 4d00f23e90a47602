/* gpu_options.c: the defaults and names of gpu_options.h. */
#include "gpu/gpu_options.h"

#include <stdio.h>
#include <string.h>

gpu_options gpu_options_defaults(void) {
  gpu_options o = {.device = 0,
                   .precision = GPU_PRECISION_FP32,
                   .autotune = GPU_AUTOTUNE_EXACT,
                   .chain = GPU_CHAIN_NONE};
  return o;
}

const char *gpu_autotune_name(gpu_autotune autotune) {
  switch (autotune) {
  case GPU_AUTOTUNE_OFF: return "off";
  case GPU_AUTOTUNE_EXACT: return "exact";
  case GPU_AUTOTUNE_FAST: return "fast";
  }
  return "(unknown)";
}

const char *const *gpu_autotune_choices(void) {
  static const char *const names[] = {"exact", "fast", "off", NULL};
  return names;
}

gpu_autotune gpu_autotune_choice(int index) {
  static const gpu_autotune modes[] = {GPU_AUTOTUNE_EXACT, GPU_AUTOTUNE_FAST,
                                       GPU_AUTOTUNE_OFF};
  return modes[index];
}

const char *gpu_precision_name(gpu_precision precision) {
  switch (precision) {
  case GPU_PRECISION_FP32: return "fp32";
  case GPU_PRECISION_TF32: return "tf32";
  case GPU_PRECISION_BF16: return "bf16";
  case GPU_PRECISION_FP16: return "fp16";
  case GPU_PRECISION_FP8: return "fp8";
  case GPU_PRECISION_COUNT: break;
  }
  return "(unknown)";
}

int gpu_precision_parse(const char *name) {
  for (int p = 0; p < GPU_PRECISION_COUNT; p++)
    if (strcmp(name, gpu_precision_name((gpu_precision)p)) == 0) return p;
  return -1;
}

/* The --chain names, bit i named chain_names[i]. */
static const char *const chain_names[] = {"side-partials", "sgd-lane",
                                          "priorities", "trigger"};
enum { CHAIN_NAMES = (int)(sizeof chain_names / sizeof chain_names[0]) };

static int chain_bit(const char *name, size_t length) {
  for (int i = 0; i < CHAIN_NAMES; i++)
    if (strlen(chain_names[i]) == length &&
        strncmp(name, chain_names[i], length) == 0)
      return 1 << i;
  return 0;
}

int gpu_chain_parse(unsigned *chain, const char *text, char *err,
                    size_t err_size) {
  static const char *const expected =
      "none, all, or a comma-separated list of side-partials, sgd-lane, "
      "priorities, trigger";
  static const struct {
    const char *name;
    unsigned bits;
  } words[] = {{"none", GPU_CHAIN_NONE}, {"all", GPU_CHAIN_ALL}};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
    if (strcmp(text, words[i].name) == 0) {
      *chain = words[i].bits;
      return 0;
    }
  unsigned bits = 0;
  const char *p = text;
  for (;;) {
    size_t length = strcspn(p, ",");
    int bit = chain_bit(p, length);
    if (!bit || (bits & (unsigned)bit)) {
      snprintf(err, err_size, "expected %s (each once), found \"%.*s\"%s",
               expected, (int)length, p,
               bit ? " twice" : (length == 0 ? " (an empty name)" : ""));
      return -1;
    }
    bits |= (unsigned)bit;
    if (p[length] == '\0') break;
    p += length + 1;
  }
  *chain = bits;
  return 0;
}

void gpu_chain_format(char *out, size_t size, unsigned chain) {
  if (size == 0) return;
  out[0] = '\0';
  if ((chain & GPU_CHAIN_ALL) == 0) {
    snprintf(out, size, "none");
    return;
  }
  size_t used = 0;
  for (int i = 0; i < CHAIN_NAMES; i++) {
    if (!(chain & (1u << i))) continue;
    int wrote = snprintf(out + used, size - used, "%s%s", used ? "," : "",
                         chain_names[i]);
    if (wrote < 0 || (size_t)wrote >= size - used) return;
    used += (size_t)wrote;
  }
}
