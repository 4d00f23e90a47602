/* lt_call.h: the description of one matmul call, shared by the cuBLASLt
 * wrapper (lt_matmul.h) and the plain-C oracle (layers/oracle.h). Plain C,
 * no CUDA headers, so CPU-only code can include it.
 */
#ifndef MNIST_EPILOGS_LT_CALL_H
#define MNIST_EPILOGS_LT_CALL_H

typedef enum lt_epilogue {
  LT_EPILOGUE_DEFAULT,
  LT_EPILOGUE_BIAS,
  LT_EPILOGUE_RELU_AUX_BIAS,
  LT_EPILOGUE_DRELU_BGRAD,
  LT_EPILOGUE_BGRADB
} lt_epilogue;

typedef struct lt_matmul_call {
  int m, n, k;
  int transa, transb;   /* 0: N, 1: T */
  const float *d_a;     /* op(A) (m, k); stored (m, k) if N, (k, m) if T */
  int lda;
  const float *d_b;     /* op(B) (k, n); stored (k, n) if N, (n, k) if T */
  int ldb;
  float *d_d;           /* D (m, n) col-major, written */
  int ldd;
  lt_epilogue epilogue;
  float *d_bias;        /* BIAS, RELU_AUX_BIAS: read [m]; DRELU_BGRAD:
                           written [m]; BGRADB: written [n]; else NULL */
  void *d_aux;          /* RELU_AUX_BIAS: written; DRELU_BGRAD: read;
                           (aux_ld / 8, n) bytes */
  int aux_ld;           /* bits; multiple of 128, >= m */
} lt_matmul_call;

const char *lt_epilogue_name(lt_epilogue epilogue);

/* aux_ld (bits) for a mask of `rows` features: rows rounded up to 128, the
 * rule of CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD. */
int lt_aux_ld(int rows);
/* Bytes of such a mask for n columns: aux_ld / 8 * n. */
unsigned long lt_aux_bytes(int rows, int n);

#endif
