/* gpu_arch.c: the capability rules of gpu_arch.h, in plain C. */
#include "gpu/gpu_arch.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One list entry, e.g. "89-real": its number, suffix letter ('a', 'f' or
 * 0) and whether it carries SASS and PTX. Returns 0, or -1 when the entry
 * is not a number ("native", "all", "all-major"). */
static int parse_entry(const char *entry, int *arch, char *suffix, int *sass,
                       int *ptx) {
  char *end = NULL;
  long value = strtol(entry, &end, 10);
  if (end == entry || value <= 0) return -1;
  *arch = (int)value;
  *suffix = (*end == 'a' || *end == 'f') ? *end++ : 0;
  *sass = strcmp(end, "-virtual") != 0;
  *ptx = strcmp(end, "-real") != 0;
  return 0;
}

static int sass_runs(int arch, char suffix, int capability) {
  if (suffix == 'a') return arch == capability;
  return arch / 10 == capability / 10 && arch % 10 <= capability % 10;
}

static int ptx_runs(int arch, char suffix, int capability) {
  if (suffix == 'a') return arch == capability;
  if (suffix == 'f') return sass_runs(arch, suffix, capability);
  return capability >= arch;
}

gpu_code gpu_arch_code_for(const char *list, int capability) {
  gpu_code best = GPU_CODE_NONE;
  const char *p = list ? list : "";
  while (*p) {
    while (*p == ';' || *p == ',' || isspace((unsigned char)*p))
      p++;
    size_t len = strcspn(p, ";, \t\n");
    if (len == 0) break;
    char entry[32];
    snprintf(entry, sizeof entry, "%.*s", (int)len, p);
    p += len;
    int arch, sass, ptx;
    char suffix;
    if (parse_entry(entry, &arch, &suffix, &sass, &ptx) != 0)
      return GPU_CODE_UNKNOWN;
    if (sass && sass_runs(arch, suffix, capability)) best = GPU_CODE_SASS;
    if (ptx && ptx_runs(arch, suffix, capability) && best == GPU_CODE_NONE)
      best = GPU_CODE_PTX;
  }
  return best;
}

/* The oldest Linux driver of a CUDA major (NVIDIA's CUDA Toolkit release
 * notes, table 3), or NULL for a major this table does not know. */
static const char *linux_driver_for(int cuda_major) {
  static const struct {
    int major;
    const char *driver;
  } drivers[] = {{12, "525.60.13"}, {13, "580"}};
  for (size_t i = 0; i < sizeof drivers / sizeof drivers[0]; i++)
    if (drivers[i].major == cuda_major) return drivers[i].driver;
  return NULL;
}

gpu_arch_verdict gpu_driver_decide(char *msg, size_t msg_size,
                                   int driver_version, int runtime_version,
                                   gpu_code code) {
  msg[0] = 0;
  int need_major = runtime_version / 1000;
  int need_minor = runtime_version % 1000 / 10;
  if (driver_version <= 0) {
    snprintf(msg, msg_size,
             "no NVIDIA driver found: this build's CUDA runtime is %d.%d; "
             "install an NVIDIA driver for CUDA %d.%d or newer",
             need_major, need_minor, need_major, need_minor);
    return GPU_ARCH_NO_DRIVER;
  }
  int have_major = driver_version / 1000;
  int have_minor = driver_version % 1000 / 10;
  int old_major = have_major < need_major;
  if (!old_major && !(driver_version < runtime_version && code == GPU_CODE_PTX))
    return GPU_ARCH_OK;
  /* A new major needs that major's first driver (minor-version
   * compatibility covers the rest); JIT-compiling PTX needs a driver of
   * this very minor, whose number the table does not hold. */
  const char *linux_driver = old_major ? linux_driver_for(need_major) : NULL;
  char need[96];
  if (linux_driver)
    snprintf(need, sizeof need, "CUDA %d.x needs driver %s or newer on Linux",
             need_major, linux_driver);
  else
    snprintf(need, sizeof need, "one for CUDA %d.%d or newer", need_major,
             need_minor);
  snprintf(msg, msg_size,
           "the NVIDIA driver supports CUDA up to %d.%d, but this build "
           "needs CUDA %d.%d%s: update the driver (%s)",
           have_major, have_minor, need_major, need_minor,
           old_major ? ""
                     : " (its code for this GPU is PTX, which an older driver "
                       "cannot compile)",
           need);
  return GPU_ARCH_OLD_DRIVER;
}

/* "8.9" from 89. */
static void capability_text(char *out, size_t size, int capability) {
  snprintf(out, size, "%d.%d", capability / 10, capability % 10);
}

gpu_arch_verdict gpu_arch_decide(char *msg, size_t msg_size,
                                 const gpu_arch_facts *f) {
  /* A kernel the real probe loaded runs, whatever the list says (and the
   * driver compiled it if it was PTX): only the major is left to check. */
  gpu_code code = f->kernel_image == 1
                      ? GPU_CODE_UNKNOWN
                      : gpu_arch_code_for(f->arch_list, f->capability);
  gpu_arch_verdict v = gpu_driver_decide(msg, msg_size, f->driver_version,
                                         f->runtime_version, code);
  if (v != GPU_ARCH_OK) return v;
  char cc[16];
  capability_text(cc, sizeof cc, f->capability);
  if (f->capability < GPU_ARCH_MIN_CAPABILITY) {
    snprintf(msg, msg_size,
             "the %s has compute capability %s; CUDA 13 and this project "
             "need 7.5 or newer (a T4, an RTX 20xx or any later GPU)",
             f->device_name, cc);
    return GPU_ARCH_OLD_GPU;
  }
  int has_code = f->kernel_image >= 0 ? f->kernel_image : code != GPU_CODE_NONE;
  if (!has_code) {
    snprintf(msg, msg_size,
             "this build has no code for the %s (compute capability %s): it "
             "holds CUDA architectures '%s', and GPU code runs only on its "
             "own architecture family (SASS) or a newer GPU (PTX). Rebuild "
             "for this GPU: cmake -S . -B build "
             "-DCMAKE_CUDA_ARCHITECTURES=%d-real && cmake --build build "
             "(or scripts/train.sh, which builds for the GPU it finds)",
             f->device_name, cc, f->arch_list ? f->arch_list : "",
             f->capability);
    return GPU_ARCH_NO_CODE;
  }
  return GPU_ARCH_OK;
}

int gpu_precision_check(char *msg, size_t msg_size, const char *device_name,
                        int capability, gpu_precision precision) {
  msg[0] = 0;
  char cc[16];
  capability_text(cc, sizeof cc, capability);
  const char *name = gpu_precision_name(precision);
  if (capability < GPU_ARCH_MIN_CAPABILITY) {
    snprintf(msg, msg_size,
             "--precision %s: the %s has compute capability %s; every "
             "precision needs 7.5 or newer (CUDA 13)",
             name, device_name, cc);
    return -1;
  }
  if (precision == GPU_PRECISION_FP8 && capability < 89) {
    snprintf(msg, msg_size,
             "--precision fp8: the %s (compute capability %s) has no FP8 "
             "tensor cores (they need 8.9: Ada, Hopper or newer); choose "
             "bf16 or fp16",
             device_name, cc);
    return -1;
  }
  if (capability >= 80) return 0;
  if (precision == GPU_PRECISION_TF32) {
    snprintf(msg, msg_size,
             "--precision tf32: the %s (compute capability %s) has no TF32 "
             "tensor cores (they need 8.0): cuBLASLt computes in plain FP32",
             device_name, cc);
    return 1;
  }
  if (precision == GPU_PRECISION_BF16) {
    snprintf(msg, msg_size,
             "--precision bf16: the %s (compute capability %s) has no BF16 "
             "tensor cores (they need 8.0): cuBLASLt runs BF16 without them, "
             "slower; fp16 uses this GPU's tensor cores",
             device_name, cc);
    return 1;
  }
  return 0;
}

void gpu_precision_refusal(char *msg, size_t msg_size, const char *device_name,
                           int capability, gpu_precision precision,
                           const char *epilogue, const char *reason) {
  char cc[16];
  capability_text(cc, sizeof cc, capability);
  snprintf(msg, msg_size,
           "--precision %s: cuBLASLt on the %s (compute capability %s) "
           "refuses the %s epilogue a run in this precision needs (%s); "
           "choose another --precision",
           gpu_precision_name(precision), device_name, cc, epilogue, reason);
}

int gpu_early_start_allowed(int binary_version, int ptx_version) {
  return binary_version >= 90 && ptx_version >= 90;
}
