/* tune_search.c: the step tuner's search (tune_search.h). */
#include "train/tune_search.h"

#include <math.h>
#include <string.h>

void tune_log_init(tune_log *log, double budget_ms) {
  memset(log, 0, sizeof *log);
  log->budget_ms = budget_ms;
}

int tune_log_check_keeps(const tune_log *log, const tune_verdict *v) {
  return tune_rule_check(v, log->untuned_alone_ms, log->untuned_alone_noise_ms,
                         TUNE_MIN_GAIN_STEPS, log->check_ways_only);
}

static void log_add(tune_log *log, int slot, int from, int to,
                    const tune_verdict *v) {
  log->comparisons++;
  if (log->count >= TUNE_MAX_RECORDS) return;
  tune_record *r = &log->record[log->count++];
  r->slot = slot;
  r->from = from;
  r->to = to;
  r->verdict = *v;
}

/* tune_compare, the budget checked or not; *out (may be NULL) = the
 * verdict (zero when nothing was judged). */
static int compare(int *wins, const tune_config *a, const tune_config *b,
                   const tune_ops *ops, tune_log *log, int slot, int from,
                   int to, int budgeted, tune_floor floor, tune_verdict *out) {
  float base[TUNE_PAIRS], cand[TUNE_PAIRS];
  double spent = 0.0;
  tune_verdict v;
  *wins = 0;
  if (out) memset(out, 0, sizeof *out);
  if (budgeted && log->spent_ms >= log->budget_ms) {
    log->budget_hit = 1;
    return 1;
  }
  int status =
      ops->measure(ops->self, a, b, TUNE_EARLY_PAIRS, base, cand, &spent);
  if (status < 0) return -1;
  if (status > 0) {
    memset(&v, 0, sizeof v);
    v.refused = 1;
    log_add(log, slot, from, to, &v);
    return 0;
  }
  log->spent_ms += spent;
  int pairs = TUNE_EARLY_PAIRS;
  if (!tune_rule_out_early(base, cand, pairs)) {
    if (ops->measure(ops->self, a, b, TUNE_PAIRS - pairs, base + pairs,
                     cand + pairs, &spent) != 0)
      return -1; /* b ran in the first stage: a failure now is an error */
    log->spent_ms += spent;
    pairs = TUNE_PAIRS;
  }
  tune_rule_judge(&v, base, cand, pairs, floor);
  v.early = pairs < TUNE_PAIRS;
  v.wins = v.wins && !v.early;
  log_add(log, slot, from, to, &v);
  *wins = v.wins;
  if (out) *out = v;
  return 0;
}

int tune_compare(int *wins, const tune_config *a, const tune_config *b,
                 const tune_ops *ops, tune_log *log, int slot, int from, int to,
                 tune_floor floor) {
  return compare(wins, a, b, ops, log, slot, from, to, 1, floor, NULL);
}

int tune_compare_always(int *wins, const tune_config *a, const tune_config *b,
                        const tune_ops *ops, tune_log *log, int slot, int from,
                        int to, tune_floor floor, tune_verdict *out) {
  return compare(wins, a, b, ops, log, slot, from, to, 0, floor, out);
}

tune_floor tune_slot_floor(const tune_slot *s) {
  return s->field == TUNE_FIELD_WAY ? TUNE_FLOOR_WAY : TUNE_FLOOR_ALGO;
}

/* tune_challengers, the values marked in `tried` (may be NULL) left out. */
static int challengers_except(int *out, const tune_slot *s, int current,
                              const unsigned char *tried) {
  int count = 0;
  int timed = s->field != TUNE_FIELD_WAY && s->alone_us[current] > 0.0f;
  float limit = (float)(TUNE_ALONE_WINDOW * s->alone_us[current]);
  /* Fastest alone first; values within TUNE_ALONE_TIE of the fastest left
   * are ties, taken in the heuristic's order (times alone move by more
   * than that from process to process); ways in their own order. */
  int taken[TUNE_MAX_VALUES] = {0};
  for (int v = 0; tried && v < TUNE_MAX_VALUES; v++)
    taken[v] = tried[v];
  while (count < TUNE_PER_SLOT) {
    int eligible[TUNE_MAX_VALUES], n = 0;
    float fastest = 0.0f;
    for (int v = 0; v < s->count && v < TUNE_MAX_VALUES; v++) {
      if (v == current || !s->ok[v] || taken[v]) continue;
      if (timed && (s->alone_us[v] <= 0.0f || s->alone_us[v] > limit)) continue;
      if (n == 0 || s->alone_us[v] < fastest) fastest = s->alone_us[v];
      eligible[n++] = v;
    }
    if (n == 0) break;
    int best = eligible[0];
    for (int i = 0; timed && i < n; i++)
      if (s->alone_us[eligible[i]] <= (float)(TUNE_ALONE_TIE * fastest)) {
        best = eligible[i];
        break;
      }
    taken[best] = 1;
    out[count++] = best;
  }
  return count;
}

int tune_challengers(int *out, const tune_slot *s, int current) {
  return challengers_except(out, s, current, NULL);
}

/* The slot's share of the step: its incumbent value alone (0: unknown). */
static float share(const tune_slot *s, const tune_config *c, int slot) {
  return s->field == TUNE_FIELD_WAY ? 0.0f : s->alone_us[c->value[slot]];
}

/* visit sorted by share, largest first; equal shares keep their order. */
static void order_by_share(int *order, const tune_slot *slots, const int *visit,
                           int count, const tune_config *c) {
  memcpy(order, visit, (size_t)count * sizeof *order);
  for (int i = 1; i < count; i++) {
    int x = order[i], j = i;
    float sx = share(&slots[x], c, x);
    while (j > 0 && share(&slots[order[j - 1]], c, order[j - 1]) < sx) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = x;
  }
}

/* A way that gained beyond the noise but under its floor: its slot,
 * value and median gain (ms per step, negative). */
typedef struct near_winner {
  int slot, value;
  double diff_ms;
} near_winner;

/* Records v's challenger (slot, value) in near[] when it is a near winner
 * of a way slot: fully measured, faster beyond TUNE_NEAR_K times the
 * noise, short of the floor. One per slot, the largest gain. */
static void note_near(near_winner *near, int *count, const tune_slot *s,
                      int slot, int value, const tune_verdict *v) {
  if (s->field != TUNE_FIELD_WAY || v->wins || v->early || v->refused ||
      v->pairs == 0 || !(v->diff_ms < -TUNE_NEAR_K * v->noise_ms))
    return;
  for (int i = 0; i < *count; i++)
    if (near[i].slot == slot) {
      if (v->diff_ms < near[i].diff_ms) {
        near[i].value = value;
        near[i].diff_ms = v->diff_ms;
      }
      return;
    }
  if (*count < TUNE_MAX_SLOTS)
    near[(*count)++] = (near_winner){slot, value, v->diff_ms};
}

/* Forgets slot's near winner: a challenger won there, so the value it
 * was measured against is gone (its challengers of its own are noted
 * anew). */
static void drop_near(near_winner *near, int *count, int slot) {
  for (int i = 0; i < *count; i++)
    if (near[i].slot == slot) {
      near[i] = near[--*count];
      return;
    }
}

/* The near winners together, as one challenger of the incumbent, judged
 * by the way floor, whatever the budget (one comparison, after the
 * visits, which may have spent it): each was faster beyond the noise, and
 * together they may clear the floor that none cleared alone (two or
 * more). Returns 0 or -1. */
static int try_near_winners(tune_config *incumbent, const near_winner *near,
                            int count, const tune_ops *ops, tune_log *log) {
  if (count < 2) return 0;
  /* Each differs from the incumbent: a slot's near value lost to the value
   * it holds, and a slot that won since has none (drop_near). */
  tune_config trial = *incumbent;
  for (int i = 0; i < count; i++)
    trial.value[near[i].slot] = (unsigned char)near[i].value;
  int wins = 0;
  if (tune_compare_always(&wins, incumbent, &trial, ops, log, -1, 0,
                          TUNE_NEAR_WINNERS, TUNE_FLOOR_WAY, NULL) != 0)
    return -1;
  if (wins) *incumbent = trial;
  return 0;
}

int tune_search(tune_config *incumbent, const tune_slot *slots,
                const int *visit, int visit_count, const tune_ops *ops,
                tune_log *log) {
  int order[TUNE_MAX_SLOTS];
  near_winner near[TUNE_MAX_SLOTS];
  int near_count = 0;
  if (visit_count > TUNE_MAX_SLOTS) visit_count = TUNE_MAX_SLOTS;
  order_by_share(order, slots, visit, visit_count, incumbent);
  for (int i = 0; i < visit_count; i++) {
    int slot = order[i];
    int challenger[TUNE_PER_SLOT];
    unsigned char tried[TUNE_MAX_VALUES] = {0};
    tried[incumbent->value[slot]] = 1;
    int count = challengers_except(challenger, &slots[slot],
                                   incumbent->value[slot], tried);
    for (int c = 0; c < count; c++) {
      tune_config trial = *incumbent;
      int from = incumbent->value[slot], wins = 0;
      tune_verdict v;
      trial.value[slot] = (unsigned char)challenger[c];
      int status = compare(&wins, incumbent, &trial, ops, log, slot, from,
                           challenger[c], 1, tune_slot_floor(&slots[slot]), &v);
      if (status < 0) return -1;
      if (status > 0) /* the budget is spent */
        return try_near_winners(incumbent, near, near_count, ops, log);
      tried[challenger[c]] = 1;
      note_near(near, &near_count, &slots[slot], slot, challenger[c], &v);
      if (!wins) continue;
      drop_near(near, &near_count, slot);
      /* The winner gets challengers of its own among the values not yet
       * tried: ties alone are taken in the heuristic's order, so the best
       * in the step may have been third. Each value is tried once. */
      *incumbent = trial;
      count = challengers_except(challenger, &slots[slot],
                                 incumbent->value[slot], tried);
      c = -1;
    }
  }
  return try_near_winners(incumbent, near, near_count, ops, log);
}

int tune_steps_tied(const tune_verdict *v, double narrow) {
  return v->pairs > 0 && !v->refused && v->base_ms > 0.0 &&
         fabs(v->diff_ms) < narrow * v->base_ms;
}

/* *incumbent against *challenger in the step whatever the budget (record
 * from -> to at `floor`; none when they are the same set): *incumbent =
 * the winner. Returns 0 or -1. */
static int keep_better(tune_config *incumbent, const tune_config *challenger,
                       const tune_ops *ops, tune_log *log, int from, int to,
                       tune_floor floor) {
  if (memcmp(challenger, incumbent, sizeof *challenger) == 0) return 0;
  int wins = 0;
  if (tune_compare_always(&wins, incumbent, challenger, ops, log, -1, from, to,
                          floor, NULL) != 0)
    return -1;
  if (wins) *incumbent = *challenger;
  return 0;
}

int tune_search_other_start(tune_config *incumbent, tune_config *other,
                            const tune_slot *slots, const int *visit,
                            int visit_count, const tune_ops *ops, tune_log *log,
                            double budget, int from, int to) {
  double asked = log->budget_ms;
  log->budget_ms = log->spent_ms + budget;
  int status = tune_search(other, slots, visit, visit_count, ops, log);
  log->budget_ms = asked;
  if (status != 0) return -1;
  return keep_better(incumbent, other, ops, log, from, to, TUNE_FLOOR_STEPS);
}

int tune_weigh_against_off(tune_config *tuned, const tune_config *off,
                           const tune_slot *slots, int count,
                           const tune_ops *ops, tune_log *log) {
  tune_config best = *off;
  tune_floor floor = tune_algorithms_moved(tuned, slots, count)
                         ? TUNE_FLOOR_STEPS
                         : TUNE_FLOOR_WAY;
  if (keep_better(&best, tuned, ops, log, TUNE_OFF_SET, TUNE_TUNED, floor) != 0)
    return -1;
  *tuned = best;
  return 0;
}

int tune_off_defended(tune_config *start, int *start_fused,
                      const tune_config *chosen, const tune_config *off,
                      const tune_config *off_start, int off_start_fused) {
  int off_won = memcmp(chosen, off, sizeof *chosen) == 0;
  *start = off_won ? *off_start : *off;
  *start_fused = off_won && off_start_fused;
  return off_won ? TUNE_START : TUNE_OFF_SET;
}

int tune_defended(tune_config *out, const tune_config *chosen,
                  const tune_config *start, const tune_slot *slots, int count) {
  tune_first_algorithms(out, chosen, slots, count);
  for (int i = 0; start && i < count && i < TUNE_MAX_SLOTS; i++)
    if (slots[i].field == TUNE_FIELD_WAY) out->value[i] = start->value[i];
  return memcmp(out, chosen, sizeof *out) != 0;
}

int tune_first_algorithms(tune_config *out, const tune_config *c,
                          const tune_slot *slots, int count) {
  int moved = tune_algorithms_moved(c, slots, count);
  *out = *c;
  for (int i = 0; i < count && i < TUNE_MAX_SLOTS; i++)
    if (slots[i].field != TUNE_FIELD_WAY) out->value[i] = 0;
  return moved;
}

int tune_algorithms_moved(const tune_config *c, const tune_slot *slots,
                          int count) {
  int moved = 0;
  for (int i = 0; i < count && i < TUNE_MAX_SLOTS; i++)
    moved += slots[i].field != TUNE_FIELD_WAY && c->value[i] != 0;
  return moved;
}

int tune_auto_start(tune_config *start, const tune_config *best,
                    const tune_config *fused, const tune_config *unfused,
                    const tune_verdict *v, double narrow,
                    const tune_slot *slots, int count) {
  *start = *best;
  if (!v || !v->wins || !(-v->diff_ms < narrow * v->base_ms)) return 0;
  for (int i = 0; i < count && i < TUNE_MAX_SLOTS; i++)
    if (slots[i].field == TUNE_FIELD_WAY && best->value[i] != unfused->value[i])
      return 0;
  for (int i = 0; i < count && i < TUNE_MAX_SLOTS; i++)
    if (slots[i].field == TUNE_FIELD_WAY) start->value[i] = fused->value[i];
  return 1;
}
