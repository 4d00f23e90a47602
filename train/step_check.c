/* step_check.c: the check in a fresh context of a set the step tuner
 * chose apart (step_check.h). */
#include "train/step_check.h"

#include <stdio.h>
#include <stdlib.h>

#include "gpu/gpu_context.h"
#include "train/step_slots.h"
#include "train/step_time.h"

/* 1 when `chosen` differs from `defended` in the calls' ways only: every
 * other slot holds the same value, cuBLASLt's first (tune_rule_check). */
static int ways_only(const step_tune_report *r, const tune_config *chosen,
                     const tune_config *defended) {
  for (int i = 0; i < r->slot_count; i++)
    if (r->slots[i].field != TUNE_FIELD_WAY &&
        chosen->value[i] != defended->value[i])
      return 0;
  return 1;
}

/* check()'s work, between the network's state kept and put back. */
typedef struct check_job {
  step_tune_report *r;
  const step_tune_target *t;
  const tune_config *defended;
  int from; /* its record name (step_tune_check) */
  int wins;
} check_job;

static int check_kept(void *arg) {
  check_job *job = arg;
  step_tune_report *r = job->r;
  step_clock *clock = NULL;
  int status =
      step_clock_create(&clock, job->t, r->calls, r->slots, r->slot_count);
  if (status == 0) {
    /* The defended step against itself before the chosen set's kernels
     * are loaded: two rounds of 2 x TUNE_PAIRS samples each; the second,
     * run nearer the pairs, is the one kept. On the H200 the big network's
     * FP8 step (0.58 ms) ran 0.5805-0.5868 ms in one round and
     * 0.5852-0.5888 in the pairs that followed, and that 5 us dropped, in
     * two processes of six, a set whose epochs ran 1.5-2 % faster; with two
     * rounds the second ran 0.8-4.3 us slower than the first in three
     * processes of three (on 0.04-0.13 ms steps the rounds agree within 0.5
     * us), and each kept the set (docs/performance.md, "Session 13"). */
    float alone[2 * TUNE_PAIRS];
    for (int round = 0; round < 2 && status == 0; round++) {
      double spent = 0.0;
      status =
          step_clock_measure(clock, job->defended, job->defended, TUNE_PAIRS,
                             alone, alone + TUNE_PAIRS, &spent);
      r->log.spent_ms += spent;
      if (round == 0 && status == 0)
        r->log.untuned_first_ms = tune_median(alone, 2 * TUNE_PAIRS);
    }
    if (status > 0) {
      fprintf(stderr, "step_tune: the defended step was refused in the fresh "
                      "context (expected it to run: its kernels ran in the "
                      "search)\n");
      status = -1;
    }
    if (status == 0) {
      r->log.untuned_alone_ms = tune_median(alone, 2 * TUNE_PAIRS);
      r->log.untuned_alone_noise_ms = tune_noise(alone, 2 * TUNE_PAIRS);
      tune_ops ops = {clock, step_clock_measure};
      status = tune_compare_always(&job->wins, job->defended, &r->chosen, &ops,
                                   &r->log, -1, job->from, TUNE_CHOSEN,
                                   TUNE_FLOOR_STEPS, NULL);
    }
    r->log.check_ways_only = ways_only(r, &r->chosen, job->defended);
    if (status == 0 && r->log.count > 0)
      job->wins = tune_log_check_keeps(
          &r->log, &r->log.record[r->log.count - 1].verdict);
  }
  step_clock_destroy(clock);
  return status;
}

/* The check (step_tune_options.check) in this context, a fresh one whose
 * warm-up ran the first candidates: the defended step timed alone, then
 * the chosen set (its kernels loaded now) against it, interleaved
 * (tune_rule_check), the network put back (step_time_kept); r->chosen
 * ends as the set that wins. Returns 0 or -1. */
static int check(step_tune_report *r, const step_tune_target *t,
                 const tune_config *defended, int from) {
  check_job job = {r, t, defended, from, 0};
  int status = step_time_kept(t, check_kept, &job);
  if (status != 0 || !job.wins) r->chosen = *defended;
  return status;
}

int step_check_apart(step_tune_report *r, const step_tune_target *t,
                     const step_tune_options *o, const char *key) {
  tune_config defended;
  if (!tune_defended(&defended, &r->chosen, r->has_start ? &r->start : NULL,
                     r->slots, r->slot_count))
    return 0;
  /* The chosen set's entry and the defended set's. */
  tune_cache_entry *entries = malloc(2 * sizeof *entries);
  step_tune_report *copy = malloc(sizeof *copy);
  int status = entries && copy ? 0 : -1;
  if (status != 0) fprintf(stderr, "step_tune: out of host memory\n");
  if (status == 0 && (step_slots_entry(&entries[0], t->ctx, r->calls, r->slots,
                                       r->slot_count, &r->chosen, key) != 0 ||
                      step_slots_entry(&entries[1], t->ctx, r->calls, r->slots,
                                       r->slot_count, &defended, key) != 0))
    status = -1;
  /* The first context apart is destroyed beside nothing timed. */
  gpu_context_settle(t->ctx);
  if (status == 0) {
    step_tune_check sets = {&entries[0], &entries[1],
                            r->has_start ? r->defended_from : TUNE_UNTUNED};
    status = o->tune_apart(o->apart_arg, &sets, copy);
  }
  const tune_log *got = status == 0 ? &copy->log : NULL;
  if (got && got->count > 0 && got->untuned_alone_ms > 0.0 &&
      got->record[got->count - 1].to == TUNE_CHOSEN) {
    const tune_record *c = &got->record[got->count - 1];
    if (r->log.count == TUNE_MAX_RECORDS) r->log.count--;
    r->log.record[r->log.count++] = *c;
    r->log.comparisons++;
    r->log.spent_ms += got->spent_ms;
    r->log.untuned_alone_ms = got->untuned_alone_ms;
    r->log.untuned_alone_noise_ms = got->untuned_alone_noise_ms;
    r->log.untuned_first_ms = got->untuned_first_ms;
    r->log.check_ways_only = ways_only(r, &r->chosen, &defended);
    if (!tune_log_check_keeps(&r->log, &c->verdict)) r->chosen = defended;
  } else {
    r->chosen = defended;
    status = 1;
    fprintf(stderr,
            "step_tune: note: the chosen set could not be checked in a fresh "
            "context (see above); this run takes the set the check defends "
            "(cuBLASLt's first candidates; under auto with the start's "
            "ways, or off's set) and caches nothing\n");
  }
  free(copy);
  free(entries);
  return status == 0 ? 0 : 1;
}

int step_check_run(step_tune_report *r, const step_tune_target *t,
                   const step_tune_options *o) {
  char why[256] = "";
  tune_config defended;
  tune_log_init(&r->log, o->budget_ms);
  r->slot_count = step_slots_build(r->slots, t, r->calls, r->call_count, 0);
  if (r->slot_count < 0 ||
      step_slots_from_entry(&r->chosen, t->ctx, r->calls, r->slots,
                            r->slot_count, o->check->chosen, 1, why,
                            sizeof why) != 0 ||
      step_slots_from_entry(&defended, t->ctx, r->calls, r->slots,
                            r->slot_count, o->check->defended, 1, why,
                            sizeof why) != 0) {
    fprintf(stderr, "step_tune: the sets to check do not fit this step: %s\n",
            why[0] ? why : lt_last_error(t->ctx));
    return -1;
  }
  if (check(r, t, &defended, o->check->from) != 0) return -1;
  step_slots_apply(t->net, r->calls, r->slots, r->slot_count, &r->chosen, t->n);
  return 0;
}
