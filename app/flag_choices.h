/* flag_choices.h: the named values that several programs' flags accept
 * (cli_flags.h CLI_CHOICE tables), listed once: precisions, modes and
 * activations, in the order their enums number them. */
#ifndef MNIST_EPILOGS_FLAG_CHOICES_H
#define MNIST_EPILOGS_FLAG_CHOICES_H

/* "fp32", "tf32", "bf16", "fp16", "fp8", NULL (gpu_precision_parse reads them).
 */
const char *const *flag_precision_names(void);

/* "fused", "unfused", "auto", NULL. */
const char *const *flag_mode_names(void);

/* "relu", "gelu", NULL. */
const char *const *flag_activation_names(void);

/* The index-th of flag_mode_names() into the mlp_mode at `target`. */
void flag_store_mode(void *target, int index);

/* --fp8-format (gpu_fp8_format_choices: hybrid, e4m3) and --fp8-scaling
 * (gpu_fp8_scaling_choices: delayed, current) into the gpu_fp8_recipe at
 * `target`. */
void flag_store_fp8_format(void *target, int index);
void flag_store_fp8_scaling(void *target, int index);
/* --fp8-fast-accum (gpu_fp8_fast_accum_choices) into the recipe. */
void flag_store_fp8_fast_accum(void *target, int index);

/* --tune-cache (tune_cache_mode_choices: use, refresh, off) into the
 * tune_cache_mode at `target`. */
void flag_store_tune_cache(void *target, int index);

#endif
