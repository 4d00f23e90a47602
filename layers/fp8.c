/* fp8.c: the FP8 casts, their scales and the scale rule (fp8.h). The
 * encoder works in integers: |x| = sig 2^e, and the binade fixes the FP8
 * quantum, so rounding is one shift, to nearest even. */
#include "layers/fp8.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The shape of one format. */
typedef struct fp8_spec {
  int mantissa_bits; /* M */
  int bias;
  int max_exponent; /* of the largest finite value: 8, 15 */
  uint8_t max_code; /* 0x7E, 0x7B */
} fp8_spec;

static fp8_spec spec_of(lt_fp8 format) {
  if (format == LT_FP8_E5M2) return (fp8_spec){2, 15, 15, 0x7B};
  return (fp8_spec){3, 7, 8, 0x7E};
}

int fp8_is_nan(uint8_t code, lt_fp8 format) {
  uint8_t magnitude = code & 0x7F;
  return format == LT_FP8_E5M2 ? magnitude > 0x7C : magnitude == 0x7F;
}

float fp8_decode(uint8_t code, lt_fp8 format) {
  fp8_spec s = spec_of(format);
  int magnitude = code & 0x7F;
  float sign = (code & 0x80) ? -1.0f : 1.0f;
  if (fp8_is_nan(code, format)) return NAN;
  if (format == LT_FP8_E5M2 && magnitude == 0x7C) return sign * INFINITY;
  int field = magnitude >> s.mantissa_bits;
  int mantissa = magnitude & ((1 << s.mantissa_bits) - 1);
  /* Exact: subnormal m 2^(1-bias-M), normal (2^M + m) 2^(field-bias-M). */
  if (field == 0)
    return sign * ldexpf((float)mantissa, 1 - s.bias - s.mantissa_bits);
  return sign * ldexpf((float)((1 << s.mantissa_bits) + mantissa),
                       field - s.bias - s.mantissa_bits);
}

/* sig * 2^-shift rounded to the nearest integer, ties to even; shift > 0. */
static uint32_t shift_round_even(uint32_t sig, int shift) {
  if (shift > 32) return 0; /* sig < 2^24: below a quarter */
  uint64_t wide = sig;
  uint64_t kept = wide >> shift;
  uint64_t rest = wide & ((1ull << shift) - 1);
  uint64_t half = 1ull << (shift - 1);
  if (rest > half || (rest == half && (kept & 1))) kept++;
  return (uint32_t)kept;
}

/* The magnitude code of a finite |x| = sig * 2^e (sig > 0), whose binade
 * is 2^exponent (exponent = floor(log2 |x|)), saturated: a value that
 * rounds beyond max finite gives max finite. */
static uint8_t encode_magnitude(uint32_t sig, int e, int exponent, fp8_spec s) {
  int min_exponent = 1 - s.bias;
  if (exponent > s.max_exponent) return s.max_code;
  if (exponent < min_exponent)
    exponent = min_exponent; /* subnormal range: one fixed quantum */
  int quantum = exponent - s.mantissa_bits;
  uint32_t n = shift_round_even(sig, quantum - e); /* |x| / 2^quantum */
  /* Codes count quanta: the subnormal binade's code is n; binade `exponent`'s
   * ((exponent - min_exponent) << M) + n, n in [2^M, 2^(M+1)], where n =
   * 2^(M+1) (a carry) lands on the next binade's first code. */
  uint32_t code = ((uint32_t)(exponent - min_exponent) << s.mantissa_bits) + n;
  return code > s.max_code ? s.max_code : (uint8_t)code;
}

uint8_t fp8_encode(float x, lt_fp8 format) {
  fp8_spec s = spec_of(format);
  uint8_t sign = signbit(x) ? 0x80 : 0;
  if (isnan(x)) return 0x7F; /* NaN, its sign dropped */
  if (isinf(x)) return sign | s.max_code;
  if (x == 0.0f) return sign;
  int binade; /* |x| = f * 2^binade, f in [0.5, 1), subnormals too */
  float f = frexpf(fabsf(x), &binade);
  /* f 2^24 is an integer < 2^24, exact: sig = f 2^24, e = binade - 24 */
  return sign |
         encode_magnitude((uint32_t)ldexpf(f, 24), binade - 24, binade - 1, s);
}

uint8_t fp8_encode_scaled(float x, float scale, lt_fp8 format) {
  return fp8_encode(x * scale, format);
}

float fp8_decode_scaled(uint8_t code, float scale_inv, lt_fp8 format) {
  return fp8_decode(code, format) * scale_inv;
}

int fp8_scale_from_amax(float *scale, float amax, lt_fp8 format, char *why,
                        size_t why_size) {
  int outcome;
  float previous = *scale;
  *scale = fp8_scale_rule(amax, fp8_max_finite(format), previous, &outcome);
  if (outcome != FP8_SCALE_BAD) return 0;
  if (why && why_size)
    snprintf(why, why_size,
             "fp8 %s scale: expected a finite amax >= 0, found %g (the "
             "tensor holds inf or NaN); scale left at %g",
             lt_fp8_name(format), (double)amax, (double)previous);
  return -1;
}

lt_fp8 fp8_recipe_gradient(const fp8_recipe *recipe) {
  return recipe->all_e4m3 ? LT_FP8_E4M3 : LT_FP8_E5M2;
}

int fp8_recipe_fast(const fp8_recipe *recipe, int forward) {
  return recipe->fast_accum == FP8_FAST_ACCUM_ALL ||
         (forward && recipe->fast_accum == FP8_FAST_ACCUM_FORWARD);
}

static const char *const choices[FP8_RECIPE_FIELDS][4] = {
    {"hybrid", "e4m3", NULL},
    {"delayed", "current", NULL},
    {"forward", "all", "none", NULL}};

const char *const *fp8_recipe_choices(fp8_recipe_field field) {
  return choices[field];
}

/* The recipe's fields as choice indices, in fp8_recipe_field order. */
static void indices_of(const fp8_recipe *r, int index[FP8_RECIPE_FIELDS]) {
  index[0] = r->all_e4m3 != 0;
  index[1] = r->current != 0;
  index[2] = (unsigned)r->fast_accum < 3 ? (int)r->fast_accum : 0;
}

void fp8_recipe_names(const fp8_recipe *recipe,
                      const char *names[FP8_RECIPE_FIELDS]) {
  int index[FP8_RECIPE_FIELDS];
  indices_of(recipe, index);
  for (int f = 0; f < FP8_RECIPE_FIELDS; f++)
    names[f] = choices[f][index[f]];
}

int fp8_recipe_from_names(fp8_recipe *recipe,
                          const char *const names[FP8_RECIPE_FIELDS], char *why,
                          size_t why_size) {
  static const char *const keys[] = {"fp8_format", "fp8_scaling",
                                     "fp8_fast_accum"};
  int index[FP8_RECIPE_FIELDS];
  indices_of(recipe, index);
  for (int f = 0; f < FP8_RECIPE_FIELDS; f++) {
    if (!names[f] || !names[f][0]) continue;
    int i = 0;
    while (choices[f][i] && strcmp(choices[f][i], names[f]) != 0)
      i++;
    if (!choices[f][i]) {
      snprintf(why, why_size, "'%s': expected %s or %s%s%s, found '%.40s'",
               keys[f], choices[f][0], choices[f][1],
               choices[f][2] ? " or " : "", choices[f][2] ? choices[f][2] : "",
               names[f]);
      return -1;
    }
    index[f] = i;
  }
  recipe->all_e4m3 = index[0];
  recipe->current = index[1];
  recipe->fast_accum = (fp8_fast_accum)index[2];
  return 0;
}
