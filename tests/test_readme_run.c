/* test_readme_run.c: README.md's "What a run prints" is what the build
 * prints: runs the command the section gives (build/mnist_train --epochs 5
 * on the real data) and compares, digit for digit, the loss and accuracy
 * columns of every epoch row and the final accuracy with the block (the
 * timing columns vary and are not compared). The block records its GPU and
 * cuBLASLt version in its first line; on another GPU or library the digits
 * may differ, so the test skips (77) there, saying which. Skips without a
 * GPU or the data too. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/test_gpu.h"
#include "tests/test_util.h"

static const char *mnist_dir;

/* The README's block: the text between the first ``` pair after the
 * section's heading, into out. Returns 0 or -1. */
static int readme_block(char *out, size_t size) {
  FILE *f = fopen(MNIST_SOURCE_DIR "/README.md", "r");
  if (!f) return -1;
  char line[1024];
  int in_section = 0, in_block = 0;
  size_t at = 0;
  out[0] = '\0';
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "## ", 3) == 0)
      in_section = strncmp(line, "## What a run prints", 20) == 0;
    if (!in_section) continue;
    if (strncmp(line, "```", 3) == 0) {
      if (in_block) break;
      in_block = 1;
      continue;
    }
    if (in_block && at + strlen(line) < size) {
      memcpy(out + at, line, strlen(line) + 1);
      at += strlen(line);
    }
  }
  fclose(f);
  return at > 0 ? 0 : -1;
}

/* The line of `text` that starts with `prefix` (up to its newline) into
 * out; "" when none does. */
static void line_starting(char *out, size_t size, const char *text,
                          const char *prefix) {
  out[0] = '\0';
  for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
    if (strncmp(p, prefix, strlen(prefix)) == 0) {
      snprintf(out, size, "%.*s", (int)strcspn(p, "\n"), p);
      return;
    }
}

/* The epoch rows' first five columns (epoch, losses, accuracies) and the
 * done line's accuracy, one per line. */
static void digits(char *out, size_t size, const char *text) {
  size_t at = 0;
  out[0] = '\0';
  for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
    int epoch;
    char loss[32], acc[32], tloss[32], tacc[32];
    if (sscanf(p, "%d %31s %31s %31s %31s", &epoch, loss, acc, tloss, tacc) ==
            5 &&
        strchr(acc, '%'))
      at += (size_t)snprintf(out + at, size - at, "%d %s %s %s %s\n", epoch,
                             loss, acc, tloss, tacc);
    else if (strncmp(p, "done: test accuracy ", 20) == 0)
      at += (size_t)snprintf(out + at, size - at, "%.*s\n",
                             (int)strcspn(p + 20, ";"), p + 20);
    if (at >= size) break;
  }
}

START_TEST(readme_block_is_what_the_build_prints) {
  char block[8192], command[8192], text[65536];
  ck_assert_msg(readme_block(block, sizeof block) == 0,
                "README.md has no block under \"## What a run prints\"");
  snprintf(command, sizeof command, "'%s' --epochs 5 --data-dir '%s'",
           MNIST_TRAIN_PATH, mnist_dir);
  ck_assert_msg(test_capture(command, text, sizeof text) == 0, "%s", text);
  char recorded[512], here[512];
  line_starting(recorded, sizeof recorded, block, "mnist_train: ");
  line_starting(here, sizeof here, text, "mnist_train: ");
  ck_assert_msg(recorded[0], "the block records no \"mnist_train: \" line");
  if (strcmp(recorded, here) != 0) {
    printf("SKIP readme_run: the block was printed by \"%s\", this run is "
           "\"%s\" (another GPU or cuBLASLt)\n",
           recorded, here);
    exit(TEST_SKIP);
  }
  char want[4096], got[4096];
  digits(want, sizeof want, block);
  digits(got, sizeof got, text);
  ck_assert_msg(strchr(want, '\n'), "no epoch rows in the block");
  ck_assert_msg(strcmp(want, got) == 0, "README's block:\n%s\nthis build:\n%s",
                want, got);
}
END_TEST

int main(void) {
  test_require_gpu("readme_run");
  char why[1024];
  const char *mnist[] = {MNIST_SOURCE_DIR "/data/mnist",
                         MNIST_SOURCE_DIR "/../shared/data/mnist", NULL};
  mnist_dir = test_find_data("MNIST_DIR", mnist, why, sizeof why);
  if (!mnist_dir) {
    printf("SKIP readme_run: MNIST %s\n", why);
    return TEST_SKIP;
  }
  Suite *suite = suite_create("readme_run");
  TCase *tc = tcase_create("readme");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, readme_block_is_what_the_build_prints);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 1);
}
