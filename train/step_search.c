/* step_search.c: the step tuner's search in its phases (step_search.h):
 * under --mode auto the tuned all-fused and all-unfused steps, the ways
 * alone, the start and the ways (from both steps after a tie), all timed
 * in the step. */
#include "train/step_search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lt/lt_auto.h"
#include "train/host_clock.h"
#include "train/step_slots.h"
#include "train/step_time.h"

/* Under auto: the slots of one field, the way of every call `way`. */
static int slots_of(int *out, const tune_slot *slots, int count,
                    tune_field field) {
  int n = 0;
  for (int i = 0; i < count; i++)
    if (slots[i].field == field) out[n++] = i;
  return n;
}

/* Whether slot i's call has a way slot (an epilogue call under auto). */
static int has_way(const tune_slot *slots, int count, int i) {
  for (int j = 0; j < count; j++)
    if (slots[j].call == slots[i].call && slots[j].field == TUNE_FIELD_WAY)
      return 1;
  return 0;
}

/* Under auto, the algorithm slots a step whose calls all go one way runs:
 * fused, every call's own plan; unfused, the twins' plans, and the own
 * plan of a call without a twin (a DEFAULT call has no way slot). */
static int runs_of(int *out, const tune_slot *slots, int count, int unfused) {
  int n = 0;
  for (int i = 0; i < count; i++)
    if (slots[i].field == (unfused ? TUNE_FIELD_PLAIN : TUNE_FIELD_ALGO) ||
        (unfused && slots[i].field == TUNE_FIELD_ALGO &&
         !has_way(slots, count, i)))
      out[n++] = i;
  return n;
}

_Static_assert((int)LT_AUTO_SPLIT < (int)TUNE_WAYS_ALONE,
               "a whole-step record's step names are not ways");

/* Under auto: *alone = *from with each call's way as the call takes it
 * alone (lt_matmul_auto_choice on cuBLASLt's first candidates: the ways
 * auto runs untuned), and each way slot's alone_us its ways' times alone,
 * for the report (--show-plans: on the H200 a call's way faster alone
 * lost in the step, docs/performance.md "Session 10"). Returns 1 when a
 * way differs from *from's, 0 when none does, -1 on failure. */
static int ways_alone(tune_config *alone, const tune_config *from,
                      step_tune_report *r, const step_tune_target *t) {
  *alone = *from;
  int differs = 0;
  for (int i = 0; i < r->slot_count; i++) {
    tune_slot *s = &r->slots[i];
    if (s->field != TUNE_FIELD_WAY) continue;
    lt_matmul_call call = r->calls[s->call].call;
    call.pick = (lt_pick){0};
    int way;
    float way_us[LT_AUTO_SPLIT + 1];
    if (lt_matmul_auto_choice(t->ctx, r->calls[s->call].lane, &call, &way,
                              way_us) != 0)
      return -1;
    for (int w = 0; w < s->count && w <= LT_AUTO_SPLIT; w++)
      s->alone_us[w] = way_us[w];
    if (way < 0 || way >= s->count || !s->ok[way]) continue;
    differs |= way != from->value[i];
    alone->value[i] = (unsigned char)way;
  }
  return differs;
}

/* Under auto: *best against the same step with each call's way as the
 * call takes it alone (what auto runs untuned, and a72cb34 ran), whatever
 * the budget, judged by the way floor (several calls' ways change at
 * once; at the whole steps' 0.5 % the same 0.8 % gain won in one process
 * and lost in two, session 7): a start made of several ways together,
 * which the way search, one call at a time, within its budget, may not
 * reach (on the H200, tuned auto ran 784-100-10 FP16 GELU all fused, 15 %
 * behind such a mix). `better`: the better step's way (1 fused, 2
 * unfused).
 * Deciding the ways alone times each call's ways on its own (outside the
 * budget: log.ways_alone_ms); when that fails, the comparison is left out,
 * said on stderr. Returns 0 or -1 (a comparison failed). */
static int weigh_ways_alone(tune_config *best, step_tune_report *r,
                            const step_tune_target *t, tune_ops *ops,
                            int better) {
  tune_config alone;
  double started = host_clock_ms();
  int differs = ways_alone(&alone, best, r, t);
  if (differs < 0) {
    const char *why = lt_last_error(t->ctx);
    fprintf(stderr,
            "step_tune: note: the calls' ways alone could not be decided "
            "(%s); not weighed\n",
            why[0] ? why : "see the line above");
    (void)cudaGetLastError(); /* a sticky one fails the next comparison */
    return 0;
  }
  r->log.ways_alone_ms += host_clock_ms() - started; /* both searches' */
  if (!differs) return 0;
  int wins = 0;
  if (tune_compare_always(&wins, best, &alone, ops, &r->log, -1, better,
                          TUNE_WAYS_ALONE, TUNE_FLOOR_WAY, NULL) != 0)
    return -1;
  if (wins) *best = alone;
  return 0;
}

double step_tune_narrow(void) {
  const char *text = getenv("MNIST_TUNE_AUTO_NARROW");
  if (!text || !text[0]) return TUNE_AUTO_NARROW;
  char *end;
  double v = strtod(text, &end);
  if (*end == '\0' && v >= 0.0 && v <= 1.0) return v;
  fprintf(stderr,
          "step_tune: MNIST_TUNE_AUTO_NARROW: expected a fraction from 0 to "
          "1, found '%.40s'; using %g\n",
          text, TUNE_AUTO_NARROW);
  return TUNE_AUTO_NARROW;
}

/* c with the other tuned step's algorithms where a call may switch to its
 * way: the twins' (PLAIN) from unfused, the epilogue calls' own from
 * fused. */
static void with_both_algorithms(tune_config *c, const tune_config *fused,
                                 const tune_config *unfused,
                                 const step_tune_report *r) {
  for (int i = 0; i < r->slot_count; i++)
    if (r->slots[i].field == TUNE_FIELD_PLAIN)
      c->value[i] = unfused->value[i];
    else if (r->slots[i].field == TUNE_FIELD_ALGO &&
             has_way(r->slots, r->slot_count, i))
      c->value[i] = fused->value[i];
}

/* The search in its phases (step_tune.h), from the heuristic's first
 * candidates. `off`: off's set, where this search follows the search
 * --autotune off runs (search_off_first); when neither step's algorithms
 * move, the rest would run that search again on the same configurations,
 * so it ends there with off's set (tune_log.off_repeated). */
static int search(tune_config *best, step_tune_report *r,
                  const step_tune_target *t, step_clock *clock,
                  const tune_config *off) {
  tune_ops ops = {clock, step_clock_measure};
  int visit[TUNE_MAX_SLOTS];
  int n;
  if (t->mode != MLP_MODE_AUTO) {
    step_slots_first(best, r->slots, r->slot_count, 0);
    for (n = 0; n < r->slot_count; n++)
      visit[n] = n;
    return tune_search(best, r->slots, visit, n, &ops, &r->log);
  }
  /* The algorithms of the all-fused step, then of the all-unfused step
   * (half the budget each: the first must not spend the second's), then
   * the two tuned steps against each other (always, whatever the budget:
   * on the H200 a big network's first comparisons alone spent it, and auto
   * stayed fused, 24 % behind unfused), then the better one against its
   * calls' ways alone (weigh_ways_alone), then each call's way from the
   * best (at least a budget more), and after a near tie of the two steps
   * from the other one as well (a budget more; tune_search_other_start). */
  tune_config fused, unfused;
  /* Budgets count from what an earlier search spent (search_off_first). */
  double budget = r->log.budget_ms, base = r->log.spent_ms;
  step_slots_first(&fused, r->slots, r->slot_count, LT_AUTO_FUSED);
  step_slots_first(&unfused, r->slots, r->slot_count, LT_AUTO_UNFUSED);
  r->log.budget_ms = base + budget / 2;
  n = runs_of(visit, r->slots, r->slot_count, 0);
  if (tune_search(&fused, r->slots, visit, n, &ops, &r->log) != 0) return -1;
  r->log.budget_ms = base + budget;
  n = runs_of(visit, r->slots, r->slot_count, 1);
  if (tune_search(&unfused, r->slots, visit, n, &ops, &r->log) != 0) return -1;
  if (off && !tune_algorithms_moved(&fused, r->slots, r->slot_count) &&
      !tune_algorithms_moved(&unfused, r->slots, r->slot_count)) {
    *best = *off;
    r->log.off_repeated = 1;
    r->log.budget_ms = budget;
    return 0;
  }
  int wins = 0;
  tune_verdict steps; /* for tune_auto_start */
  if (tune_compare_always(&wins, &fused, &unfused, &ops, &r->log, -1,
                          LT_AUTO_FUSED, LT_AUTO_UNFUSED, TUNE_FLOOR_STEPS,
                          &steps) < 0)
    return -1;
  /* The better step (and the other), with the other's tuned algorithms
   * where a call may switch to its way: the twins' when fused won, the
   * epilogue calls' own when unfused did. */
  *best = wins ? unfused : fused;
  tune_config other = wins ? fused : unfused;
  with_both_algorithms(best, &fused, &unfused, r);
  with_both_algorithms(&other, &fused, &unfused, r);
  tune_config better = *best;
  if (weigh_ways_alone(best, r, t, &ops,
                       wins ? LT_AUTO_UNFUSED : LT_AUTO_FUSED) != 0)
    return -1;
  /* Where the first way search starts, for the records after a tie. */
  int first_start = memcmp(&better, best, sizeof better) != 0
                        ? TUNE_FROM_WAYS_ALONE
                    : wins ? TUNE_FROM_UNFUSED
                           : TUNE_FROM_FUSED;
  if (!r->has_start) r->narrow = step_tune_narrow(); /* read once a run */
  r->start_fused = tune_auto_start(&r->start, best, &fused, &unfused, &steps,
                                   r->narrow, r->slots, r->slot_count);
  r->has_start = 1;
  r->defended_from = TUNE_START;
  /* The ways get what is left of 1.5 budgets, and at least a budget of
   * their own: with what the algorithms left over (half a budget), a 30 us
   * step's way search ended after a few calls, 15 % behind the search
   * with no algorithms to try (--autotune off) on the H200. */
  r->log.budget_ms = base + budget * 1.5;
  if (r->log.budget_ms < r->log.spent_ms + budget)
    r->log.budget_ms = r->log.spent_ms + budget;
  n = slots_of(visit, r->slots, r->slot_count, TUNE_FIELD_WAY);
  int status = tune_search(best, r->slots, visit, n, &ops, &r->log);
  /* A near tie of the whole steps: the search from the other one too. */
  if (status == 0 && tune_steps_tied(&steps, r->narrow))
    status = tune_search_other_start(
        best, &other, r->slots, visit, n, &ops, &r->log, budget, first_start,
        wins ? TUNE_FROM_FUSED : TUNE_FROM_UNFUSED);
  r->log.budget_ms = budget; /* the report names the budget asked for */
  return status;
}

/* Under auto with a rule: first the search --autotune off runs (every
 * algorithm slot cuBLASLt's first candidate, listed unchecked, so that no
 * other candidate's kernel is loaded while the ways are timed, as in off's
 * context), then the slots with their candidates checked and the whole
 * search (off's set where it moves no algorithm: search), then its end
 * against off's set (tune_weigh_against_off: on the
 * H200 784-1024-1024-10 TF32 auto's search, with every candidate loaded,
 * ended apart from off's ways in three processes of four and ran
 * 1.016-1.048x off, docs/performance.md "Session 28"). The check in a
 * fresh context then defends what off's would (its start) where off's set
 * won, else off's set itself. */
static int search_off_first(step_tune_report *r, const step_tune_target *t,
                            step_clock *clock) {
  tune_config off;
  if (search(&off, r, t, clock, NULL) != 0) return -1;
  tune_config off_start = r->start;
  int off_start_fused = r->start_fused;
  r->log.off_records = r->log.count;
  /* The ways' times alone as off's search took them: the rebuild zeroes
   * them, and the whole search times them again only if it goes on. */
  float way_us[TUNE_MAX_SLOTS][LT_AUTO_SPLIT + 1];
  for (int i = 0; i < r->slot_count; i++)
    memcpy(way_us[i], r->slots[i].alone_us, sizeof way_us[i]);
  int checked = step_slots_build(r->slots, t, r->calls, r->call_count, 1);
  if (checked != r->slot_count) {
    fprintf(stderr,
            "step_tune: the checked slots are not the unchecked ones: "
            "expected %d, found %d (%s)\n",
            r->slot_count, checked, lt_last_error(t->ctx));
    return -1;
  }
  for (int i = 0; i < r->slot_count; i++)
    if (r->slots[i].field == TUNE_FIELD_WAY)
      memcpy(r->slots[i].alone_us, way_us[i], sizeof way_us[i]);
  tune_ops ops = {clock, step_clock_measure};
  if (search(&r->chosen, r, t, clock, &off) != 0 ||
      tune_weigh_against_off(&r->chosen, &off, r->slots, r->slot_count, &ops,
                             &r->log) != 0)
    return -1;
  r->defended_from = tune_off_defended(&r->start, &r->start_fused, &r->chosen,
                                       &off, &off_start, off_start_fused);
  return 0;
}

/* step_search_tune's work, between the network's state kept and put back. */
typedef struct tune_job {
  step_tune_report *r;
  const step_tune_target *t;
} tune_job;

static int tune_kept(void *arg) {
  tune_job *job = arg;
  step_tune_report *r = job->r;
  step_clock *clock = NULL;
  int off_first = job->t->mode == MLP_MODE_AUTO &&
                  job->t->ctx->options.autotune != GPU_AUTOTUNE_OFF;
  r->slot_count =
      step_slots_build(r->slots, job->t, r->calls, r->call_count, !off_first);
  int status = r->slot_count < 0 ? -1 : 0;
  if (status == 0)
    status =
        step_clock_create(&clock, job->t, r->calls, r->slots, r->slot_count);
  if (status == 0)
    status = off_first ? search_off_first(r, job->t, clock)
                       : search(&r->chosen, r, job->t, clock, NULL);
  step_clock_destroy(clock);
  return status;
}

int step_search_tune(step_tune_report *r, const step_tune_target *t,
                     const step_tune_options *o) {
  tune_log_init(&r->log, o->budget_ms > 0 ? o->budget_ms : STEP_TUNE_BUDGET_MS);
  tune_job job = {r, t};
  return step_time_kept(t, tune_kept, &job);
}
