/* test_shapes.h: the call sizes the epilogue suites run every epilogue at:
 * each of 1, 7, 100, 127, 129, 784 as m and as k; batch (n) 1, 96, 256. */
#ifndef MNIST_EPILOGS_TEST_SHAPES_H
#define MNIST_EPILOGS_TEST_SHAPES_H

typedef struct test_shape {
  int m, n, k;
} test_shape;

static const test_shape test_shapes[] = {
    {1, 1, 1},      {7, 96, 100},  {100, 256, 784}, {127, 96, 129},
    {129, 256, 7},  {784, 1, 127}, {784, 96, 100},  {100, 1, 784},
    {129, 96, 129}, {7, 256, 784}, {127, 256, 1},   {1, 96, 7},
};
enum { TEST_SHAPES = sizeof test_shapes / sizeof test_shapes[0] };

#endif
