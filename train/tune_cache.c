/* tune_cache.c: the step tuner's choices on disk (tune_cache.h). */
#include "train/tune_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char magic[] = "mnist-epilogs tuning cache 1";

const char *const *tune_cache_mode_choices(void) {
  static const char *const names[] = {"use", "refresh", "off", NULL};
  return names;
}

unsigned long long tune_fnv1a(unsigned long long hash, const void *data,
                              size_t size) {
  const unsigned char *p = data;
  for (size_t i = 0; i < size; i++) {
    hash ^= p[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

int tune_cache_default_dir(char *out, size_t size) {
  const char *dir = getenv("MNIST_TUNE_CACHE_DIR");
  const char *xdg = getenv("XDG_CACHE_HOME");
  const char *home = getenv("HOME");
  int n;
  if (dir && dir[0])
    n = snprintf(out, size, "%s", dir);
  else if (xdg && xdg[0])
    n = snprintf(out, size, "%s/mnist-epilogs", xdg);
  else if (home && home[0])
    n = snprintf(out, size, "%s/.cache/mnist-epilogs", home);
  else
    return -1;
  return n > 0 && (size_t)n < size ? 0 : -1;
}

int tune_cache_path(char *out, size_t size, const char *dir, const char *key) {
  unsigned long long h = tune_fnv1a(TUNE_FNV_OFFSET, key, strlen(key));
  int n = snprintf(out, size, "%s/tune-%016llx.txt", dir, h);
  return n > 0 && (size_t)n < size ? 0 : -1;
}

/* The whole file into buf (NUL-terminated), a regular file of at most
 * TUNE_CACHE_MAX_BYTES: 0, 1 when absent, -1 with why. Opened without
 * blocking, so a FIFO named there is refused, not waited on. */
static int read_whole(char *buf, size_t *len, const char *path, char *why,
                      size_t why_size) {
  int fd = open(path, O_RDONLY | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT) return 1;
    snprintf(why, why_size, "cannot open it: %s", strerror(errno));
    return -1;
  }
  struct stat st;
  int status = 0;
  if (fstat(fd, &st) != 0) {
    snprintf(why, why_size, "cannot stat it: %s", strerror(errno));
    status = -1;
  } else if (!S_ISREG(st.st_mode)) {
    snprintf(why, why_size, "expected a regular file, found another kind");
    status = -1;
  } else if (st.st_size > TUNE_CACHE_MAX_BYTES) {
    snprintf(why, why_size, "expected at most %d bytes, found %lld",
             TUNE_CACHE_MAX_BYTES, (long long)st.st_size);
    status = -1;
  }
  size_t got = 0;
  while (status == 0) {
    ssize_t r = read(fd, buf + got, (size_t)TUNE_CACHE_MAX_BYTES - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      snprintf(why, why_size, "cannot read it: %s", strerror(errno));
      status = -1;
    }
    if (r <= 0) break;
    got += (size_t)r;
  }
  close(fd);
  buf[got] = '\0';
  *len = got;
  if (status == 0 && strlen(buf) != got) {
    snprintf(why, why_size, "expected text, found a NUL byte");
    status = -1;
  }
  return status;
}

/* The next line of *at (without its newline) into line; -1 when no whole
 * line is left. */
static int next_line(char *line, size_t size, const char **at) {
  const char *end = strchr(*at, '\n');
  if (!end || (size_t)(end - *at) >= size) return -1;
  memcpy(line, *at, (size_t)(end - *at));
  line[end - *at] = '\0';
  *at = end + 1;
  return 0;
}

static int hex_value(char c) {
  return c >= '0' && c <= '9'   ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                : -1;
}

/* "a,b,...": TUNE_CACHE_ID_FIELDS whole numbers >= -1. */
static int parse_id(long long *id, const char *text) {
  for (int f = 0; f < TUNE_CACHE_ID_FIELDS; f++) {
    char *end = NULL;
    if (!(*text >= '0' && *text <= '9') && *text != '-') return -1;
    id[f] = strtoll(text, &end, 10);
    if (end == text || id[f] < -1) return -1;
    if (*end != (f + 1 < TUNE_CACHE_ID_FIELDS ? ',' : '\0')) return -1;
    text = end + 1;
  }
  return 0;
}

/* "slot <call> <field> <value> <id> <algo>" or "slot ... <value> -". */
static int parse_slot(tune_cache_slot *s, const char *line) {
  char id[256], algo[2 * TUNE_CACHE_ALGO_BYTES + 2];
  char tail;
  int n = sscanf(line, "slot %d %d %d %255s %129s %c", &s->call, &s->field,
                 &s->value, id, algo, &tail);
  if (n != 4 && n != 5) return -1;
  if (s->call < 0 || s->field < 0 || s->field > TUNE_FIELD_WAY ||
      s->value < 0 || s->value >= TUNE_MAX_VALUES)
    return -1;
  s->has_algo = n == 5;
  if (!s->has_algo)
    return s->field == TUNE_FIELD_WAY && strcmp(id, "-") == 0 ? 0 : -1;
  if (s->field == TUNE_FIELD_WAY || parse_id(s->id, id) != 0 ||
      strlen(algo) != 2 * TUNE_CACHE_ALGO_BYTES)
    return -1;
  for (int i = 0; i < TUNE_CACHE_ALGO_BYTES; i++) {
    int hi = hex_value(algo[2 * i]), lo = hex_value(algo[2 * i + 1]);
    if (hi < 0 || lo < 0) return -1;
    s->algo[i] = (unsigned char)(hi * 16 + lo);
  }
  return 0;
}

/* Parses text (len bytes) for `key` into *out; -1 with why. */
static int parse(tune_cache_entry *out, const char *text, size_t len,
                 const char *key, char *why, size_t why_size) {
  char line[TUNE_CACHE_KEY_MAX + 8];
  const char *at = text;
  memset(out, 0, sizeof *out);
  if (next_line(line, sizeof line, &at) != 0 || strcmp(line, magic) != 0) {
    snprintf(why, why_size, "expected the line \"%s\" first", magic);
    return -1;
  }
  if (next_line(line, sizeof line, &at) != 0 || strncmp(line, "key ", 4) != 0) {
    snprintf(why, why_size, "expected a key line second");
    return -1;
  }
  if (strcmp(line + 4, key) != 0) {
    snprintf(why, why_size,
             "it holds another run's key (another GPU, "
             "driver, library or network)");
    return -1;
  }
  snprintf(out->key, sizeof out->key, "%s", key);
  const char *end_line = NULL;
  while (!end_line) {
    const char *start = at;
    if (next_line(line, sizeof line, &at) != 0) {
      snprintf(why, why_size, "truncated: no end line");
      return -1;
    }
    if (strncmp(line, "slot ", 5) == 0) {
      if (out->count >= TUNE_MAX_SLOTS ||
          parse_slot(&out->slot[out->count++], line) != 0) {
        snprintf(why, why_size, "a slot line is malformed: \"%.60s\"", line);
        return -1;
      }
    } else if (strncmp(line, "fingerprint ", 12) == 0) {
      char tail;
      if (sscanf(line, "fingerprint %8x %c", &out->fingerprint, &tail) != 1) {
        snprintf(why, why_size, "the fingerprint line is malformed");
        return -1;
      }
    } else if (strncmp(line, "end ", 4) == 0) {
      end_line = start;
    } else {
      snprintf(why, why_size, "unexpected line \"%.60s\"", line);
      return -1;
    }
  }
  unsigned long long want = 0, got = tune_fnv1a(TUNE_FNV_OFFSET, text,
                                                (size_t)(end_line - text));
  char tail;
  if (sscanf(line, "end %16llx %c", &want, &tail) != 1 || want != got ||
      (size_t)(at - text) != len) {
    snprintf(why, why_size, "damaged: its checksum does not match");
    return -1;
  }
  return 0;
}

int tune_cache_read(tune_cache_entry *out, const char *path, const char *key,
                    char *why, size_t why_size) {
  char *buf = malloc((size_t)TUNE_CACHE_MAX_BYTES + 1);
  size_t len = 0;
  if (!buf) {
    snprintf(why, why_size, "out of host memory");
    return -1;
  }
  int status = read_whole(buf, &len, path, why, why_size);
  if (status == 0) status = parse(out, buf, len, key, why, why_size);
  free(buf);
  return status;
}

/* mkdir -p of the folder part of `path`, mode 0700. */
static int make_folders(const char *path, char *why, size_t why_size) {
  char dir[4096];
  if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir) {
    snprintf(why, why_size, "the path is too long");
    return -1;
  }
  char *slash = strrchr(dir, '/');
  if (!slash || slash == dir) return 0;
  *slash = '\0';
  for (char *p = dir + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
      snprintf(why, why_size, "cannot create %s: %s", dir, strerror(errno));
      return -1;
    }
    *p = '/';
  }
  if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
    snprintf(why, why_size, "cannot create %s: %s", dir, strerror(errno));
    return -1;
  }
  return 0;
}

/* The file's text into buf; returns its length, or -1 when it does not
 * fit. */
static int format(char *buf, size_t size, const tune_cache_entry *e) {
  size_t at = 0;
#define PUT(...)                                                               \
  do {                                                                         \
    int n = snprintf(buf + at, size - at, __VA_ARGS__);                        \
    if (n < 0 || (size_t)n >= size - at) return -1;                            \
    at += (size_t)n;                                                           \
  } while (0)
  PUT("%s\nkey %s\n", magic, e->key);
  for (int i = 0; i < e->count; i++) {
    const tune_cache_slot *s = &e->slot[i];
    PUT("slot %d %d %d ", s->call, s->field, s->value);
    if (!s->has_algo) PUT("-");
    for (int f = 0; s->has_algo && f < TUNE_CACHE_ID_FIELDS; f++)
      PUT("%lld%s", s->id[f], f + 1 < TUNE_CACHE_ID_FIELDS ? "," : " ");
    for (int b = 0; s->has_algo && b < TUNE_CACHE_ALGO_BYTES; b++)
      PUT("%02x", s->algo[b]);
    PUT("\n");
  }
  PUT("fingerprint %08x\n", e->fingerprint);
  PUT("end %016llx\n", tune_fnv1a(TUNE_FNV_OFFSET, buf, at));
#undef PUT
  return (int)at;
}

int tune_cache_write(const char *path, const tune_cache_entry *entry, char *why,
                     size_t why_size) {
  char tmp[4200];
  why[0] = '\0';
  char *text = malloc(TUNE_CACHE_MAX_BYTES);
  int len = text ? format(text, TUNE_CACHE_MAX_BYTES, entry) : -1;
  if (len < 0) {
    snprintf(why, why_size, "the entry does not fit %d bytes",
             TUNE_CACHE_MAX_BYTES);
    free(text);
    return -1;
  }
  if (snprintf(tmp, sizeof tmp, "%s.partial-XXXXXX", path) >= (int)sizeof tmp ||
      make_folders(path, why, why_size) != 0) {
    if (!why[0]) snprintf(why, why_size, "the path is too long");
    free(text);
    return -1;
  }
  int fd = mkstemp(tmp);
  int status = fd < 0 ? -1 : 0;
  if (status != 0)
    snprintf(why, why_size, "cannot create a file beside it: %s",
             strerror(errno));
  ssize_t wrote = status == 0 ? write(fd, text, (size_t)len) : 0;
  if (status == 0 && wrote != len) {
    snprintf(why, why_size, "cannot write it: %s",
             wrote < 0 ? strerror(errno) : "short write");
    status = -1;
  }
  if (fd >= 0 && close(fd) != 0 && status == 0) {
    snprintf(why, why_size, "cannot write it: %s", strerror(errno));
    status = -1;
  }
  if (status == 0 && rename(tmp, path) != 0) {
    snprintf(why, why_size, "cannot put it in place: %s", strerror(errno));
    status = -1;
  }
  if (status != 0 && fd >= 0) unlink(tmp);
  free(text);
  return status;
}
