/* test_util.c: see test_util.h. */
#define _XOPEN_SOURCE 700
#include "tests/test_util.h"

#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

uint64_t test_seed(const char *suite) {
  const char *env = getenv("TEST_SEED");
  uint64_t seed = env && *env
                      ? strtoull(env, NULL, 10)
                      : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
  printf("%s: seed %llu (set TEST_SEED to replay)\n", suite,
         (unsigned long long)seed);
  fflush(stdout);
  return seed;
}

void test_rng_init(test_rng *rng, uint64_t seed) {
  rng->state = seed ? seed : 0x9e3779b97f4a7c15ull;
}

uint64_t test_rng_next(test_rng *rng) {
  uint64_t x = rng->state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  rng->state = x;
  return x * 0x2545f4914f6cdd1dull;
}

double test_rng_uniform(test_rng *rng, double low, double high) {
  return low + (high - low) *
                   ((test_rng_next(rng) >> 11) * (1.0 / 9007199254740992.0));
}

int test_make_temp_dir(char *path, size_t size) {
  const char *tmp = getenv("TMPDIR");
  snprintf(path, size, "%s/mnist-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  return mkdtemp(path) ? 0 : -1;
}

static int remove_entry(const char *path, const struct stat *info, int flag,
                        struct FTW *ftw) {
  (void)info;
  (void)flag;
  (void)ftw;
  return remove(path);
}

void test_remove_dir(const char *path) {
  nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int test_write_bytes(const char *path, const void *bytes, size_t size,
                     int gzip) {
  if (gzip) {
    gzFile f = gzopen(path, "wb");
    if (!f) return -1;
    int ok = size == 0 || gzwrite(f, bytes, (unsigned)size) == (int)size;
    return gzclose(f) == Z_OK && ok ? 0 : -1;
  }
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  int ok = fwrite(bytes, 1, size, f) == size;
  return fclose(f) == 0 && ok ? 0 : -1;
}

int test_write_idx(const char *path, int type, int rank, const uint32_t *dims,
                   const void *payload, size_t payload_bytes, int gzip) {
  size_t header = 4 + 4 * (size_t)rank;
  uint8_t *bytes = malloc(header + payload_bytes + 1);
  if (!bytes) return -1;
  bytes[0] = 0;
  bytes[1] = 0;
  bytes[2] = (uint8_t)type;
  bytes[3] = (uint8_t)rank;
  for (int d = 0; d < rank; d++) {
    bytes[4 + 4 * d] = (uint8_t)(dims[d] >> 24);
    bytes[5 + 4 * d] = (uint8_t)(dims[d] >> 16);
    bytes[6 + 4 * d] = (uint8_t)(dims[d] >> 8);
    bytes[7 + 4 * d] = (uint8_t)dims[d];
  }
  if (payload_bytes) memcpy(bytes + header, payload, payload_bytes);
  int status = test_write_bytes(path, bytes, header + payload_bytes, gzip);
  free(bytes);
  return status;
}

int test_write_safetensors(const char *path, const char *header,
                           const float *data, size_t count) {
  size_t length = strlen(header), size = 8 + length + 4 * count;
  uint8_t *bytes = malloc(size);
  if (!bytes) return -1;
  for (int b = 0; b < 8; b++)
    bytes[b] = (uint8_t)((uint64_t)length >> (8 * b));
  memcpy(bytes + 8, header, length);
  for (size_t i = 0; i < count; i++) {
    uint32_t bits;
    memcpy(&bits, &data[i], 4);
    for (int b = 0; b < 4; b++)
      bytes[8 + length + 4 * i + b] = (uint8_t)(bits >> (8 * b));
  }
  int status = test_write_bytes(path, bytes, size, 0);
  free(bytes);
  return status;
}

static int write_split(const char *dir, const char *prefix, int count, int gzip,
                       uint8_t seed) {
  char path[4096];
  uint8_t *pixels = malloc((size_t)count * 784),
          *labels = malloc((size_t)count);
  if (!pixels || !labels) {
    free(pixels);
    free(labels);
    return -1;
  }
  for (size_t i = 0; i < (size_t)count * 784; i++)
    pixels[i] = (uint8_t)(i * 7 + seed);
  for (int i = 0; i < count; i++)
    labels[i] = (uint8_t)((i + seed) % 10);
  uint32_t image_dims[3] = {(uint32_t)count, 28, 28},
           label_dims[1] = {(uint32_t)count};
  snprintf(path, sizeof path, "%s/%s-images-idx3-ubyte%s", dir, prefix,
           gzip ? ".gz" : "");
  int status = test_write_idx(path, 0x08, 3, image_dims, pixels,
                              (size_t)count * 784, gzip);
  snprintf(path, sizeof path, "%s/%s-labels-idx1-ubyte%s", dir, prefix,
           gzip ? ".gz" : "");
  if (status == 0)
    status =
        test_write_idx(path, 0x08, 1, label_dims, labels, (size_t)count, gzip);
  free(pixels);
  free(labels);
  return status;
}

int test_write_tiny_mnist(const char *dir, int train_count, int test_count,
                          int gzip) {
  if (write_split(dir, "train", train_count, gzip, 1) != 0) return -1;
  return write_split(dir, "t10k", test_count, gzip, 2);
}

static int holds_data(const char *dir) {
  char path[4096];
  struct stat info;
  snprintf(path, sizeof path, "%s/train-images-idx3-ubyte.gz", dir);
  if (stat(path, &info) == 0) return 1;
  snprintf(path, sizeof path, "%s/train-images-idx3-ubyte", dir);
  return stat(path, &info) == 0;
}

const char *test_find_data(const char *env_name, const char *const *candidates,
                           char *why, size_t why_size) {
  const char *env = getenv(env_name);
  if (env && *env) {
    if (holds_data(env)) return env;
    snprintf(why, why_size, "$%s=%s holds no train-images file", env_name, env);
    return NULL;
  }
  size_t at = (size_t)snprintf(why, why_size, "no data: $%s unset, and none in",
                               env_name);
  for (int i = 0; candidates[i]; i++) {
    if (holds_data(candidates[i])) return candidates[i];
    if (at < why_size)
      at += (size_t)snprintf(why + at, why_size - at, " %s", candidates[i]);
  }
  return NULL;
}

int test_run_suite(Suite *suite, int nofork) {
  SRunner *runner = srunner_create(suite);
  if (nofork) srunner_set_fork_status(runner, CK_NOFORK);
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? 0 : 1;
}

/* Runs `command` through the shell; its output (up to size - 1 bytes) into
 * out, NUL-terminated. Returns its exit code, or -1 (not started, or
 * killed). */
static int read_command(const char *command, char *out, size_t size) {
  FILE *pipe = popen(command, "r");
  if (!pipe) return -1;
  size_t got = fread(out, 1, size - 1, pipe);
  out[got] = '\0';
  int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int test_run_program(char *out, size_t size, const char *dir,
                     const char *mnist_dir, const char *program,
                     const char *args) {
  char command[8192];
  snprintf(command, sizeof command, "cd '%s' && env %s%s '%s' %s 2>&1", dir,
           mnist_dir ? "MNIST_DIR=" : "-u MNIST_DIR",
           mnist_dir ? mnist_dir : "", program, args);
  return read_command(command, out, size);
}

int test_capture(const char *command, char *out, size_t size) {
  printf("+ %s\n", command);
  fflush(stdout);
  return read_command(command, out, size);
}

int test_count_entries(const char *folder) {
  DIR *d = opendir(folder);
  if (!d) return -1;
  int count = 0;
  for (struct dirent *e; (e = readdir(d));)
    count += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
  closedir(d);
  return count;
}
