/* eval_report.h: what `mnist_train --epochs 0 --load FILE` prints about a
 * network on the test split: accuracy, per-class accuracy and the 10 x 10
 * confusion matrix, from the predicted and true labels. Plain C. */
#ifndef MNIST_EPILOGS_EVAL_REPORT_H
#define MNIST_EPILOGS_EVAL_REPORT_H

#include <stdint.h>
#include <stdio.h>

#define EVAL_CLASSES 10

typedef struct eval_report {
  int count;                                 /* samples */
  int correct;                               /* prediction == label */
  int confusion[EVAL_CLASSES][EVAL_CLASSES]; /* [label][prediction] */
  int per_class[EVAL_CLASSES];               /* samples of each label */
} eval_report;

/* Counts `count` predictions against labels. Returns 0, or -1 when a
 * label or prediction is outside 0..9 (nothing counted past it). */
int eval_report_count(eval_report *out, const int *predictions,
                      const uint8_t *labels, int count);

/* Prints accuracy, per-class accuracy and the confusion matrix (rows: the
 * label, columns: the prediction). */
void eval_report_print(FILE *out, const eval_report *report, double loss);

#endif
