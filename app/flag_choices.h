/* flag_choices.h: the named values that several programs' flags accept
 * (cli_flags.h CLI_CHOICE tables), listed once: precisions, modes and
 * activations, in the order their enums number them. */
#ifndef MNIST_EPILOGS_FLAG_CHOICES_H
#define MNIST_EPILOGS_FLAG_CHOICES_H

#include "app/cli_flags.h"
#include "layers/fp8.h"

/* "fp32", "tf32", "bf16", "fp16", "fp8", NULL (gpu_precision_parse reads them).
 */
const char *const *flag_precision_names(void);

/* "fused", "unfused", "auto", NULL. */
const char *const *flag_mode_names(void);

/* "relu", "gelu", NULL. */
const char *const *flag_activation_names(void);

/* The index-th of flag_mode_names() into the mlp_mode at `target`. */
void flag_store_mode(void *target, int index);

/* The table entry of --fp8-format (hybrid, e4m3), --fp8-scaling (delayed,
 * current) or --fp8-fast-accum (forward, all, none): `field`'s choices
 * (fp8_recipe_choices, layers/fp8.h), stored into *recipe, *given set
 * (NULL: not told) when the flag is given. */
cli_flag flag_fp8(fp8_recipe_field field, fp8_recipe *recipe, int *given);

/* --tune-cache (tune_cache_mode_choices: use, refresh, off) into the
 * tune_cache_mode at `target`. */
void flag_store_tune_cache(void *target, int index);

#endif
