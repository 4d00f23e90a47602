/* lt_call.c: helpers of the matmul call description (no CUDA). */
#include "lt_call.h"

const char *lt_epilogue_name(lt_epilogue epilogue) {
  switch (epilogue) {
  case LT_EPILOGUE_DEFAULT: return "DEFAULT";
  case LT_EPILOGUE_BIAS: return "BIAS";
  case LT_EPILOGUE_RELU_AUX_BIAS: return "RELU_AUX_BIAS";
  case LT_EPILOGUE_DRELU_BGRAD: return "DRELU_BGRAD";
  case LT_EPILOGUE_BGRADB: return "BGRADB";
  }
  return "(unknown epilogue)";
}

int lt_aux_ld(int rows) { return (rows + 127) / 128 * 128; }

unsigned long lt_aux_bytes(int rows, int n) {
  return (unsigned long)lt_aux_ld(rows) / 8 * (unsigned long)n;
}
