/* eval_report.c: see eval_report.h. */
#include "train/eval_report.h"

#include <string.h>

int eval_report_count(eval_report *out, const int *predictions,
                      const uint8_t *labels, int count) {
  memset(out, 0, sizeof *out);
  for (int j = 0; j < count; j++) {
    int label = labels[j], guess = predictions[j];
    if (label >= EVAL_CLASSES || guess < 0 || guess >= EVAL_CLASSES) return -1;
    out->confusion[label][guess]++;
    out->per_class[label]++;
    out->correct += label == guess;
    out->count++;
  }
  return 0;
}

void eval_report_print(FILE *out, const eval_report *r, double loss) {
  fprintf(out, "test loss %.4f, accuracy %.2f%% (%d of %d)\n", loss,
          r->count ? 100.0 * r->correct / r->count : 0.0, r->correct, r->count);
  fprintf(out, "\nper class:");
  for (int c = 0; c < EVAL_CLASSES; c++)
    fprintf(out, "  %d: %.2f%%", c,
            r->per_class[c] ? 100.0 * r->confusion[c][c] / r->per_class[c]
                            : 0.0);
  fprintf(out, "\n\nconfusion matrix (rows: label, columns: prediction)\n");
  fprintf(out, "     ");
  for (int c = 0; c < EVAL_CLASSES; c++)
    fprintf(out, "%6d", c);
  fprintf(out, "\n");
  for (int l = 0; l < EVAL_CLASSES; l++) {
    fprintf(out, "%5d", l);
    for (int c = 0; c < EVAL_CLASSES; c++)
      fprintf(out, "%6d", r->confusion[l][c]);
    fprintf(out, "\n");
  }
}
