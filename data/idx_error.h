/* idx_error.h: the error record the loaders in data/ fill (the idx reader,
 * its byte source, the MNIST files and data set): a status code and a
 * message for a human. Plain C. */
#ifndef MNIST_EPILOGS_IDX_ERROR_H
#define MNIST_EPILOGS_IDX_ERROR_H

enum idx_status {
  IDX_OK = 0,
  IDX_ERR_OPEN,      /* missing, unreadable, or a directory */
  IDX_ERR_EMPTY,     /* zero bytes */
  IDX_ERR_GZIP,      /* corrupt or truncated gzip stream */
  IDX_ERR_HEADER,    /* truncated header, wrong magic */
  IDX_ERR_TYPE,      /* unsupported type code */
  IDX_ERR_RANK,      /* number of dims out of range */
  IDX_ERR_SIZE,      /* sizes overflow or are absurd */
  IDX_ERR_TRUNCATED, /* fewer element bytes than the header claims */
  IDX_ERR_TRAILING,  /* more bytes than the header claims, or bytes
                        after the end of the gzip stream */
  IDX_ERR_CONTENT,   /* a check on top: wrong shape, label out of range,
                        two copies of a file that differ */
  IDX_ERR_NOMEM      /* the host ran out of memory */
};

/* What went wrong, for a human: names the file, what was expected, what was
 * found and, where one helps, a hint. */
typedef struct idx_error {
  enum idx_status status;
  char message[768];
} idx_error;

/* Fills `err` with status and a printf-style message; returns the status. */
enum idx_status idx_fail(idx_error *err, enum idx_status status,
                         const char *format, ...)
    __attribute__((format(printf, 3, 4)));

#endif
