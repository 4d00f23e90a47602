/* tune_cache.h: the step tuner's choices kept on disk between runs, so
 * that the same command chooses the same way every time and the second
 * run spends no time tuning. Plain C (no CUDA), tested on damaged files
 * (tests/test_tune_cache.c).
 *
 * Location: $MNIST_TUNE_CACHE_DIR, else $XDG_CACHE_HOME/mnist-epilogs,
 * else $HOME/.cache/mnist-epilogs (tune_cache_default_dir); the programs'
 * --tune-cache use|refresh|off and --tune-cache-dir DIR change it. One file
 * per key, named tune-<16 hex digits of the key's FNV-1a hash>.txt, text:
 *
 *   mnist-epilogs tuning cache 1
 *   key <the key: GPU, SM count, driver, cuBLASLt version, network, batch,
 *        precision, mode, activation, padding, chain, autotune rule,
 *        workspace and the step's pointer alignments, on one line>
 *   slot <call> <field> <value> <algorithm: its 9 attributes (lt_algo_id)
 *        comma-separated, then its 64 bytes in 128 hex digits; or ->
 *   ... (one line per slot, the step tuner's order)
 *   fingerprint <8 hex digits>
 *   end <16 hex digits: FNV-1a of every line above, newlines included>
 *
 * Read: a regular file of at most TUNE_CACHE_MAX_BYTES, every line as
 * above, the key equal to the run's, the checksum right; anything else
 * (damaged, truncated, another run's key, a directory, a FIFO) is ignored
 * with one line saying why, never trusted in part. A value read here is
 * still only a hint: the tuner takes an algorithm only when the heuristic
 * offers it in this run: at its index with the same attributes, or byte
 * for byte, or as the only candidate with its attributes
 * (lt_matmul_candidate_find). Written: to a
 * temporary file in the same folder, then renamed over the old one, so a
 * reader sees the old file or the new, whole; two runs writing at once
 * leave one of them. */
#ifndef MNIST_EPILOGS_TUNE_CACHE_H
#define MNIST_EPILOGS_TUNE_CACHE_H

#include <stddef.h>

#include "train/tune_search.h"

enum {
  TUNE_CACHE_KEY_MAX = 2048,  /* bytes of a key, with its NUL */
  TUNE_CACHE_ALGO_BYTES = 64, /* cublasLtMatmulAlgo_t */
  TUNE_CACHE_ID_FIELDS = 9,   /* lt_algo_id */
  TUNE_CACHE_MAX_BYTES = 65536
};

/* How a run uses the cache. */
typedef enum tune_cache_mode {
  TUNE_CACHE_USE,     /* read it; tune and write it when it has no entry */
  TUNE_CACHE_REFRESH, /* tune, and write over what is there */
  TUNE_CACHE_OFF      /* neither read nor write */
} tune_cache_mode;

/* "use", "refresh", "off" (the --tune-cache values), NULL-terminated. */
const char *const *tune_cache_mode_choices(void);

typedef struct tune_cache_slot {
  int call, field, value;
  int has_algo; /* algorithm slots: 1, with the attributes and bytes */
  long long id[TUNE_CACHE_ID_FIELDS];
  unsigned char algo[TUNE_CACHE_ALGO_BYTES];
} tune_cache_slot;

typedef struct tune_cache_entry {
  char key[TUNE_CACHE_KEY_MAX];
  int count;
  tune_cache_slot slot[TUNE_MAX_SLOTS];
  unsigned fingerprint;
} tune_cache_entry;

/* FNV-1a, 64 bits, of size bytes, continuing from `hash` (start with
 * TUNE_FNV_OFFSET). */
#define TUNE_FNV_OFFSET 0xcbf29ce484222325ull
unsigned long long tune_fnv1a(unsigned long long hash, const void *data,
                              size_t size);

/* The default folder (above) into out; -1 when none can be named (no
 * $HOME). */
int tune_cache_default_dir(char *out, size_t size);

/* dir/tune-<hash of key>.txt into out; -1 when it does not fit. */
int tune_cache_path(char *out, size_t size, const char *dir, const char *key);

/* Reads `path` for `key`: 0 with *out filled; 1 when there is no such
 * file; -1 when it is ignored, with why[] saying why (one line). */
int tune_cache_read(tune_cache_entry *out, const char *path, const char *key,
                    char *why, size_t why_size);

/* Writes `entry` to `path` (creating its folder, mode 0700, if needed).
 * Returns 0, or -1 with why[] saying why; nothing is left half-written. */
int tune_cache_write(const char *path, const tune_cache_entry *entry, char *why,
                     size_t why_size);

#endif
