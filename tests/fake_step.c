/* fake_step.c: the step tuner suites' fake step (fake_step.h). */
#include "tests/fake_step.h"

#include <check.h>
#include <math.h>
#include <string.h>

fake_step fake_step_make(int slots, double base_ms, double noise_ms,
                         unsigned long state) {
  fake_step f = {.slots = slots,
                 .base_ms = base_ms,
                 .noise_ms = noise_ms,
                 .refuse_value = -1,
                 .state = state};
  return f;
}

/* One uniform sample in (0, 1), and one Gaussian (mean 0, deviation 1),
 * from f's generator. */
static double uniform(fake_step *f) {
  f->state = f->state * 6364136223846793005ul + 1442695040888963407ul;
  return ((f->state >> 11) + 0.5) / 9007199254740992.0;
}

static double gaussian(fake_step *f) {
  return sqrt(-2.0 * log(uniform(f))) * cos(6.283185307179586 * uniform(f));
}

/* The step's ms under configuration c, without noise. */
static double step_ms(const fake_step *f, const tune_config *c) {
  double ms = f->base_ms;
  for (int s = 0; s < f->slots; s++)
    ms += f->cost[s][c->value[s]];
  if (c->value[f->pair[0]] == f->pair_value &&
      c->value[f->pair[1]] == f->pair_value)
    ms += f->pair_ms;
  return ms;
}

int fake_measure(void *self, const tune_config *a, const tune_config *b,
                 int pairs, float *base, float *cand, double *spent) {
  fake_step *f = self;
  f->measures++;
  if (f->refuse_value >= 0 && b->value[0] == f->refuse_value) return 1;
  *spent = 0.0;
  for (int i = 0; i < pairs; i++) {
    base[i] = (float)(step_ms(f, a) + f->noise_ms * gaussian(f));
    cand[i] = (float)(step_ms(f, b) + f->noise_ms * gaussian(f));
    *spent += base[i] + cand[i];
  }
  f->pairs_measured += pairs;
  return 0;
}

void fake_slots(tune_slot *slots, int count, int values) {
  memset(slots, 0, sizeof(tune_slot) * (size_t)count);
  for (int s = 0; s < count; s++) {
    slots[s].call = s;
    slots[s].count = values;
    for (int v = 0; v < values; v++) {
      slots[s].ok[v] = 1;
      slots[s].alone_us[v] = 10.0f;
    }
  }
}

void fake_way_slots(tune_slot *slots, int count) {
  fake_slots(slots, count, 3);
  for (int s = 0; s < count; s++) {
    slots[s].field = TUNE_FIELD_WAY;
    slots[s].ok[0] = 0;
  }
}

void fake_assert_last_step(const tune_log *log, int from, int to, int wins) {
  const tune_record *last = &log->record[log->count - 1];
  ck_assert_int_eq(last->slot, -1);
  ck_assert_int_eq(last->from, from);
  ck_assert_int_eq(last->to, to);
  ck_assert_int_eq(last->verdict.wins, wins);
}
