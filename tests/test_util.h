/* test_util.h: helpers shared by the Check suites: seeded random numbers,
 * temporary folders, idx and safetensors files written on the fly, locating
 * the real data sets, and the runner that skips (exit 77) with a reason. */
#ifndef MNIST_EPILOGS_TEST_UTIL_H
#define MNIST_EPILOGS_TEST_UTIL_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

/* Ctest's SKIP_RETURN_CODE. */
#define TEST_SKIP 77

/* xorshift64*: reproducible from its seed on every platform. */
typedef struct test_rng {
  uint64_t state;
} test_rng;

/* A fresh seed per run ($TEST_SEED overrides), printed so that a failure
 * can be replayed. */
uint64_t test_seed(const char *suite);
void test_rng_init(test_rng *rng, uint64_t seed);
uint64_t test_rng_next(test_rng *rng);
/* Uniform in [low, high). */
double test_rng_uniform(test_rng *rng, double low, double high);

/* mkdtemp under $TMPDIR or /tmp; `path` gets the folder. Returns 0/-1. */
int test_make_temp_dir(char *path, size_t size);
/* rm -rf of a folder made by test_make_temp_dir. */
void test_remove_dir(const char *path);

/* Writes an idx file: magic (type, rank), dims, then `payload_bytes` bytes
 * of payload; gzipped when gzip is set. Returns 0/-1. */
int test_write_idx(const char *path, int type, int rank, const uint32_t *dims,
                   const void *payload, size_t payload_bytes, int gzip);
/* Writes raw bytes to `path` (gzipped when gzip is set). */
int test_write_bytes(const char *path, const void *bytes, size_t size,
                     int gzip);

/* Writes a safetensors file: the 8-byte little-endian length of `header`
 * (strlen, no padding), `header`, then `count` floats little-endian. The
 * header is written as given, valid or not. Returns 0/-1. */
int test_write_safetensors(const char *path, const char *header,
                           const float *data, size_t count);

/* Writes a small valid MNIST-format data set (train_count / test_count
 * images of 28x28) into dir, gzipped or raw. */
int test_write_tiny_mnist(const char *dir, int train_count, int test_count,
                          int gzip);

/* The real data set folder: $<env_name> when set, else the first of the
 * compiled-in candidates that holds files. NULL when none does; `why`
 * then says where it looked. */
const char *test_find_data(const char *env_name, const char *const *candidates,
                           char *why, size_t why_size);

/* Runs `program` with `args` (a shell fragment) in folder `dir`, with
 * MNIST_DIR set to `mnist_dir` (NULL: unset); stdout and stderr into
 * `out`. Returns the exit code, -1 on a crash. */
int test_run_program(char *out, size_t size, const char *dir,
                     const char *mnist_dir, const char *program,
                     const char *args);

/* Runs `command` through the shell (echoed to stdout first, for the log),
 * stdout and stderr into `out`. Returns the exit code, -1 on a crash. */
int test_capture(const char *command, char *out, size_t size);

/* Entries in `folder`, "." and ".." not counted; -1 when it cannot be
 * read. */
int test_count_entries(const char *folder);

/* Runs the suite; GPU suites pass nofork = 1 (CUDA does not survive fork).
 * Returns the process exit code. */
int test_run_suite(Suite *suite, int nofork);

#endif
