/* test_checkpoint_bad.c: the checkpoint loader on malformed files
 * (table-driven: every row is refused with -1, no slab, and a message that
 * names the file and holds the row's phrases): short files, bad header
 * lengths, bad JSON, bad tensor entries, offsets that do not tile the data
 * area, non-finite values, bad metadata, layers that do not chain, widths
 * other than the ones asked for. Good files: test_checkpoint.c. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "checkpoint/mlp_checkpoint.h"
#include "tests/test_util.h"

static char dir[4096];

static void setup(void) {
  ck_assert_int_eq(test_make_temp_dir(dir, sizeof dir), 0);
}
static void teardown(void) {
  test_remove_dir(dir);
}

/* A valid 3-2-1 network: 11 floats. */
#define ENTRY(name, shape, begin, end)                                         \
  "\"" name "\":{\"dtype\":\"F32\",\"shape\":" shape                           \
  ",\"data_offsets\":[" #begin "," #end "]}"
#define W0 ENTRY("0.weight", "[2,3]", 0, 24)
#define B0 ENTRY("0.bias", "[2]", 24, 32)
#define W2 ENTRY("2.weight", "[1,2]", 32, 40)
#define B2 ENTRY("2.bias", "[1]", 40, 44)
#define GOOD "{" W0 "," B0 "," W2 "," B2 "}"
/* Layer 1's tensors after a layer 0 that ends at byte 36 or 28. */
#define REST_36                                                                \
  ENTRY("2.weight", "[1,2]", 36, 44) "," ENTRY("2.bias", "[1]", 44, 48)
#define REST_28                                                                \
  ENTRY("2.weight", "[1,2]", 28, 36) "," ENTRY("2.bias", "[1]", 36, 40)
/* Layer 0 with no inputs. */
#define ZERO_W0 ENTRY("0.weight", "[2,0]", 0, 0)
#define ZERO_B0 ENTRY("0.bias", "[2]", 0, 8)
#define ZERO_W2 ENTRY("2.weight", "[1,2]", 8, 16)
#define ZERO_B2 ENTRY("2.bias", "[1]", 16, 20)
#define ZERO_WIDTH "{" ZERO_W0 "," ZERO_B0 "," ZERO_W2 "," ZERO_B2 "}"
#define META(pairs) "{\"__metadata__\":{" pairs "}," W0 "," B0 "," W2 "," B2 "}"

/* A file written as `header` (with its true length), then `floats` of
 * the values below. */
typedef struct header_case {
  const char *name;
  const char *header;
  int floats;
  const char *words[3]; /* each must appear in the message */
} header_case;

/* A file written by `make`. */
typedef struct made_case {
  const char *name;
  int (*make)(const char *path);
  const char *words[3];
} made_case;

static const float values[16] = {0.5f,  1.5f,  2.5f,  3.5f, 4.5f,  5.5f,
                                 6.5f,  7.5f,  8.5f,  9.5f, 10.5f, 11.5f,
                                 12.5f, 13.5f, 14.5f, 15.5f};

static int make_nothing(const char *path) {
  (void)path;
  return 0;
}
static int make_folder(const char *path) {
  return mkdir(path, 0700);
}
/* A FIFO no one writes to: a plain open would wait for a writer for ever. */
static int make_fifo(const char *path) {
  return mkfifo(path, 0600);
}
static int make_short(const char *path) {
  return test_write_bytes(path, "\x02\0\0", 3, 0);
}
static int make_empty(const char *path) {
  return test_write_bytes(path, "", 0, 0);
}
/* The 8-byte length `length`, then `tail`. */
static int write_length(const char *path, uint64_t length, const char *tail) {
  char bytes[64];
  for (int b = 0; b < 8; b++)
    bytes[b] = (char)(length >> (8 * b));
  size_t size = strlen(tail);
  memcpy(bytes + 8, tail, size);
  return test_write_bytes(path, bytes, 8 + size, 0);
}
static int make_length_past_end(const char *path) {
  return write_length(path, 1000, "{}");
}
static int make_length_zero(const char *path) {
  return write_length(path, 0, "{}");
}
static int make_length_huge(const char *path) {
  return write_length(path, (uint64_t)1 << 63, "{}");
}
/* The valid file with its header length 20: the JSON is cut. */
static int make_length_short(const char *path) {
  if (test_write_safetensors(path, GOOD, values, 11) != 0) return -1;
  FILE *f = fopen(path, "r+b");
  if (!f) return -1;
  int ok = fputc(20, f) != EOF && fputc(0, f) != EOF;
  return fclose(f) == 0 && ok ? 0 : -1;
}
/* The valid file with value `value` at float `index`. */
static int write_value(const char *path, int index, float value) {
  float data[11];
  memcpy(data, values, sizeof data);
  data[index] = value;
  return test_write_safetensors(path, GOOD, data, 11);
}
static int make_nan(const char *path) {
  return write_value(path, 4, NAN);
}
static int make_inf(const char *path) {
  return write_value(path, 10, -INFINITY);
}

static const made_case made_cases[] = {
    {"missing", make_nothing, {"found none", "No such"}},
    {"folder", make_folder, {"(a regular file)", "found a folder"}},
    {"FIFO", make_fifo, {"(a regular file)", "found a FIFO"}},
    {"empty", make_empty, {"at least 8 bytes", "found 0"}},
    {"too short", make_short, {"at least 8", "found 3"}},
    {"header length past the end",
     make_length_past_end,
     {"header length of at most 2", "found 1000"}},
    {"header length 0",
     make_length_zero,
     {"header length of at least 2", "found 0"}},
    {"header length 2^63",
     make_length_huge,
     {"at most", "found 9223372036854775808"}},
    {"header length cuts the JSON",
     make_length_short,
     {"expected a JSON header", "invalid JSON"}},
    {"a NaN",
     make_nan,
     {"'0.weight'", "finite", "nan at index 4 (row 1, column 1)"}},
    {"an infinity", make_inf, {"'2.bias'", "finite", "-inf at index 0"}},
};

static const header_case header_cases[] = {
    {"not JSON", "{not json}", 0, {"invalid JSON"}},
    {"bytes after the JSON",
     GOOD "xyz",
     11,
     {"only spaces after the JSON", "0x78"}},
    {"not an object", "[1, 2, 3]", 0, {"JSON object", "found an array"}},
    {"no tensors", "{}", 0, {"'0.weight'", "found none"}},
    {"a tensor missing",
     "{" W0 "," B0 "," W2 "}",
     10,
     {"'2.bias'", "found none"}},
    {"an extra tensor",
     "{" W0 "," B0 "," W2 "," B2 "," ENTRY("extra", "[1]", 44, 48) "}",
     12,
     {"unexpected tensor 'extra'"}},
    {"a gap in the module indices",
     "{" W0 "," B0 "," ENTRY("4.weight", "[1,2]", 32,
                             40) "," ENTRY("4.bias", "[1]", 40, 44) "}",
     11,
     {"unexpected tensor '4.", "no gap"}},
    {"a name twice",
     "{" W0 "," W0 "," B0 "," W2 "," B2 "}",
     11,
     {"unique", "'0.weight' twice"}},
    {"dtype F16",
     "{\"0.weight\":{\"dtype\":\"F16\",\"shape\":[2,3],\"data_offsets\":[0,"
     "24]}," B0 "," W2 "," B2 "}",
     11,
     {"'0.weight'", "expected dtype F32, found F16"}},
    {"no dtype",
     "{\"0.weight\":{\"shape\":[2,3],\"data_offsets\":[0,24]}," B0 "," W2 "," B2
     "}",
     11,
     {"'0.weight'", "expected dtype F32, found none"}},
    {"an entry not an object",
     "{\"0.weight\":7," B0 "," W2 "," B2 "}",
     11,
     {"'0.weight'", "expected an object, found a number"}},
    {"a bias of the wrong shape",
     "{" W0 "," ENTRY("0.bias", "[3]", 24, 36) "," REST_36 "}",
     12,
     {"'0.bias'", "expected shape (2) (the outputs of '0.weight')",
      "found (3)"}},
    {"0.weight transposed",
     "{" ENTRY("0.weight", "[3,2]", 0, 24) "," B0 "," W2 "," B2 "}",
     11,
     {"'0.weight'", "expected shape (out, in) = (2, 3)", "found (3, 2)"}},
    {"2.weight transposed",
     "{" W0 "," B0 "," ENTRY("2.weight", "[2,1]", 32, 40) "," B2 "}",
     11,
     {"'2.weight'", "stored transposed", "found (2, 1)"}},
    {"weights of rank 1",
     "{" ENTRY("0.weight", "[6]", 0, 24) "," B0 "," W2 "," B2 "}",
     11,
     {"'0.weight'", "expected shape (out, in)", "found (6)"}},
    {"rank 3",
     "{" ENTRY("0.weight", "[2,3,1]", 0, 24) "," B0 "," W2 "," B2 "}",
     11,
     {"'0.weight'", "rank 1 or 2", "found rank 3"}},
    {"a negative shape",
     "{" ENTRY("0.weight", "[-2,3]", 0, 24) "," B0 "," W2 "," B2 "}",
     11,
     {"'0.weight'", "non-negative integers", "found -2"}},
    {"a fractional shape",
     "{" ENTRY("0.weight", "[2.5,3]", 0, 24) "," B0 "," W2 "," B2 "}",
     11,
     {"'0.weight'", "non-negative integers", "found 2.5"}},
    {"a zero width",
     ZERO_WIDTH,
     5,
     {"'0.weight'", "widths from 1 to 65536", "(2, 0)"}},
    {"offsets out of range",
     "{" W0 "," B0 "," W2 "," ENTRY("2.bias", "[1]", 40, 48) "}",
     11,
     {"'2.bias'", "44-byte data area", "out of range"}},
    {"offsets overlapping",
     "{" W0 "," ENTRY("0.bias", "[2]", 20, 28) "," REST_28 "}",
     10,
     {"'0.bias'", "beginning at 24", "overlapping by 4 bytes"}},
    {"a gap between tensors",
     "{" W0 "," ENTRY("0.bias", "[2]", 28, 36) "," REST_36 "}",
     12,
     {"'0.bias'", "beginning at 24", "a gap of 4 bytes"}},
    {"trailing bytes", GOOD, 12, {"48-byte data area", "4 trailing bytes"}},
    {"begin after end",
     "{" W0 "," B0 "," W2 "," ENTRY("2.bias", "[1]", 44, 40) "}",
     11,
     {"'2.bias'", "begin <= end", "[44, 40]"}},
    {"size not 4 x elements",
     "{" W0 "," ENTRY("0.bias", "[2]", 24, 28) "," REST_28 "}",
     10,
     {"'0.bias'", "= 8 bytes", "found 4 bytes"}},
    {"offsets not integers",
     "{" W0 "," B0 "," W2 ",\"2.bias\":{\"dtype\":\"F32\",\"shape\":[1],"
     "\"data_offsets\":[40,\"44\"]}}",
     11,
     {"'2.bias'", "data_offsets [begin, end]", "found [40, a string]"}},
    {"metadata not a string",
     META("\"epochs\":5"),
     11,
     {"__metadata__ 'epochs'", "expected a string value, found a number"}},
    {"metadata not an object",
     "{\"__metadata__\":[]," W0 "," B0 "," W2 "," B2 "}",
     11,
     {"__metadata__ to be an object", "found an array"}},
    {"another format",
     META("\"format\":\"other v2\""),
     11,
     {"metadata 'format'", "expected 'mnist-epilogs mlp v1'",
      "found 'other v2'"}},
    {"metadata widths disagree",
     META("\"widths\":\"3-2-2\""),
     11,
     {"metadata 'widths'", "tensors' widths 3-2-1", "found '3-2-2'"}},
    {"an activation the program does not have",
     META("\"activation\":\"tanh\""),
     11,
     {"metadata 'activation'", "expected 'relu' or 'gelu'", "found 'tanh'"}},
    {"metadata epochs not a number",
     META("\"epochs\":\"five\""),
     11,
     {"metadata 'epochs'", "found 'five'"}},
    {"width chain broken",
     "{" W0 "," B0 "," ENTRY("2.weight", "[1,3]", 32,
                             44) "," ENTRY("2.bias", "[1]", 44, 48) "}",
     12,
     {"'2.weight'", "expected 2 inputs", "width chain is broken"}},
};

/* Loads `path` (asking for `want`, or not) and checks the refusal. */
static void check_refused(const char *name, const char *path, const int *want,
                          int want_depth, const char *const *words) {
  char err[1024] = "";
  mlp_checkpoint loaded;
  int status =
      mlp_checkpoint_load(path, want, want_depth, &loaded, err, sizeof err);
  ck_assert_msg(status == -1, "%s: expected -1, found %d", name, status);
  ck_assert_ptr_null(loaded.slab);
  ck_assert_msg(strstr(err, path) != NULL,
                "%s: message does not name the file: %s", name, err);
  for (int w = 0; w < 3 && words[w]; w++)
    ck_assert_msg(strstr(err, words[w]) != NULL, "%s: message lacks '%s': %s",
                  name, words[w], err);
}

START_TEST(made_file_is_refused) {
  const made_case *c = &made_cases[_i];
  char path[4200];
  snprintf(path, sizeof path, "%s/made-%d.safetensors", dir, _i);
  ck_assert_msg(c->make(path) == 0, "%s: could not write the case", c->name);
  check_refused(c->name, path, NULL, 0, c->words);
}
END_TEST

START_TEST(bad_header_is_refused) {
  const header_case *c = &header_cases[_i];
  char path[4200];
  snprintf(path, sizeof path, "%s/header-%d.safetensors", dir, _i);
  ck_assert_msg(
      test_write_safetensors(path, c->header, values, (size_t)c->floats) == 0,
      "%s: could not write the case", c->name);
  check_refused(c->name, path, NULL, 0, c->words);
}
END_TEST

START_TEST(other_widths_are_refused) {
  char path[4200];
  snprintf(path, sizeof path, "%s/good.safetensors", dir);
  ck_assert_int_eq(test_write_safetensors(path, GOOD, values, 11), 0);
  static const int widths[2][4] = {{3, 4, 1}, {3, 2, 1, 1}};
  static const char *const words[2][3] = {
      {"expected widths 3-4-1", "asked for", "found 3-2-1"},
      {"expected widths 3-2-1-1", "asked for", "found 3-2-1"}};
  check_refused("wanted widths disagree", path, widths[0], 2, words[0]);
  check_refused("wanted depth disagrees", path, widths[1], 3, words[1]);
}
END_TEST

/* The table's starting point loads: each row's refusal is its own. */
START_TEST(good_file_loads) {
  char path[4200], err[1024];
  snprintf(path, sizeof path, "%s/good.safetensors", dir);
  ck_assert_int_eq(test_write_safetensors(path, GOOD, values, 11), 0);
  mlp_checkpoint loaded;
  static const int want[3] = {3, 2, 1};
  ck_assert_msg(mlp_checkpoint_load(path, want, 2, &loaded, err, sizeof err) ==
                    0,
                "%s", err);
  ck_assert_float_eq(loaded.slab[loaded.layout.w_offset[0] + 8 + 2], 5.5f);
  ck_assert_float_eq(loaded.slab[loaded.layout.b_offset[1]], 10.5f);
  mlp_checkpoint_destroy(&loaded);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("checkpoint bad files");
  TCase *tc = tcase_create("bad files");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_loop_test(tc, made_file_is_refused, 0,
                      (int)(sizeof made_cases / sizeof made_cases[0]));
  tcase_add_loop_test(tc, bad_header_is_refused, 0,
                      (int)(sizeof header_cases / sizeof header_cases[0]));
  tcase_add_test(tc, other_widths_are_refused);
  tcase_add_test(tc, good_file_loads);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
