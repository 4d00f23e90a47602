/* step_tune.c: the step tuner's course (step_tune.h): the slots, the cache,
 * the search in its phases, the network put back, the choices applied
 * (the check in a fresh context: step_check.c). */
#include "train/step_tune.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_check.h"
#include "lt/lt_auto.h"
#include "train/host_clock.h"
#include "train/step_check.h"
#include "train/step_slots.h"
#include "train/step_time.h"
#include "train/tune_apart.h"

/* The cache key: the run's part, then what the tuner knows of the GPU,
 * the libraries and the step's calls (their pointer alignments mod 256,
 * which select kernels). */
static void make_key(char *key, size_t size, const step_tune_target *t,
                     const step_tune_options *o, const mlp_call *calls,
                     int count) {
  const gpu_context *ctx = t->ctx;
  int driver = 0;
  cudaDriverGetVersion(&driver);
  char chain[128];
  gpu_chain_format(chain, sizeof chain, ctx->options.chain);
  size_t at = (size_t)snprintf(
      key, size,
      "rule 8; %s; gpu %s; sms %d; driver %d; cublaslt %zu; chain %s; "
      "autotune %s; workspace %zu; align",
      o->run_key ? o->run_key : "", ctx->device_name, ctx->sm_count, driver,
      cublasLtGetVersion(), chain, gpu_autotune_name(ctx->options.autotune),
      (size_t)GPU_WORKSPACE_BYTES);
  for (int i = 0; i < count && at < size; i++) {
    const lt_matmul_call *c = &calls[i].call;
    const void *p[5] = {c->d_a, c->d_b, c->d_d, lt_call_bias_vector(c),
                        c->d_aux};
    for (int j = 0; j < 5 && at < size; j++)
      at += (size_t)snprintf(key + at, size - at, "%s%u", j ? "," : " ",
                             (unsigned)((uintptr_t)p[j] % 256));
  }
}

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
  r->log.ways_alone_ms = host_clock_ms() - started;
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

/* The search in its phases (step_tune.h), from the heuristic's first
 * candidates. */
static int search(tune_config *best, step_tune_report *r,
                  const step_tune_target *t, step_clock *clock) {
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
   * best (at least a budget more). */
  tune_config fused, unfused;
  double budget = r->log.budget_ms;
  step_slots_first(&fused, r->slots, r->slot_count, LT_AUTO_FUSED);
  step_slots_first(&unfused, r->slots, r->slot_count, LT_AUTO_UNFUSED);
  r->log.budget_ms = budget / 2;
  n = runs_of(visit, r->slots, r->slot_count, 0);
  if (tune_search(&fused, r->slots, visit, n, &ops, &r->log) != 0) return -1;
  r->log.budget_ms = budget;
  n = runs_of(visit, r->slots, r->slot_count, 1);
  if (tune_search(&unfused, r->slots, visit, n, &ops, &r->log) != 0) return -1;
  int wins = 0;
  tune_verdict steps; /* for tune_auto_start */
  if (tune_compare_always(&wins, &fused, &unfused, &ops, &r->log, -1,
                          LT_AUTO_FUSED, LT_AUTO_UNFUSED, TUNE_FLOOR_STEPS,
                          &steps) < 0)
    return -1;
  /* The better step, with the other's tuned algorithms where a call may
   * switch to its way: the twins' when fused won, the epilogue calls'
   * own when unfused did. */
  *best = wins ? unfused : fused;
  for (int i = 0; i < r->slot_count; i++)
    if (r->slots[i].field == TUNE_FIELD_PLAIN)
      best->value[i] = unfused.value[i];
    else if (r->slots[i].field == TUNE_FIELD_ALGO &&
             has_way(r->slots, r->slot_count, i))
      best->value[i] = fused.value[i];
  if (weigh_ways_alone(best, r, t, &ops,
                       wins ? LT_AUTO_UNFUSED : LT_AUTO_FUSED) != 0)
    return -1;
  r->narrow = step_tune_narrow();
  r->start_fused = tune_auto_start(&r->start, best, &fused, &unfused, &steps,
                                   r->narrow, r->slots, r->slot_count);
  r->has_start = 1;
  /* The ways get what is left of 1.5 budgets, and at least a budget of
   * their own: with what the algorithms left over (half a budget), a 30 us
   * step's way search ended after a few calls, 15 % behind the search
   * with no algorithms to try (--autotune off) on the H200. */
  r->log.budget_ms = budget * 1.5;
  if (r->log.budget_ms < r->log.spent_ms + budget)
    r->log.budget_ms = r->log.spent_ms + budget;
  n = slots_of(visit, r->slots, r->slot_count, TUNE_FIELD_WAY);
  int status = tune_search(best, r->slots, visit, n, &ops, &r->log);
  r->log.budget_ms = budget; /* the report names the budget asked for */
  return status;
}

/* tune()'s work, between the network's state kept and put back. */
typedef struct tune_job {
  step_tune_report *r;
  const step_tune_target *t;
} tune_job;

static int tune_kept(void *arg) {
  tune_job *job = arg;
  step_tune_report *r = job->r;
  step_clock *clock = NULL;
  r->slot_count =
      step_slots_build(r->slots, job->t, r->calls, r->call_count, 1);
  int status = r->slot_count < 0 ? -1 : 0;
  if (status == 0)
    status =
        step_clock_create(&clock, job->t, r->calls, r->slots, r->slot_count);
  if (status == 0) status = search(&r->chosen, r, job->t, clock);
  step_clock_destroy(clock);
  return status;
}

/* Checks the slots' candidates and searches, with the network's state
 * kept before the first candidate runs and put back after the last step
 * (step_time_kept). */
static int tune(step_tune_report *r, const step_tune_target *t,
                const step_tune_options *o) {
  tune_log_init(&r->log, o->budget_ms > 0 ? o->budget_ms : STEP_TUNE_BUDGET_MS);
  tune_job job = {r, t};
  return step_time_kept(t, tune_kept, &job);
}

/* The choices from the cache, when it holds this step's: 0, else 1 (the
 * note says why). */
static int from_cache(step_tune_report *r, const step_tune_target *t,
                      const char *path, const char *key) {
  tune_cache_entry entry;
  char why[256] = "";
  int read = tune_cache_read(&entry, path, key, why, sizeof why);
  if (read == 1) {
    snprintf(r->cache_note, sizeof r->cache_note, "no entry in %s", path);
    return 1;
  }
  if (read == 0 &&
      (r->slot_count =
           step_slots_build(r->slots, t, r->calls, r->call_count, 0)) >= 0 &&
      step_slots_from_entry(&r->chosen, t->ctx, r->calls, r->slots,
                            r->slot_count, &entry, 0, why, sizeof why) == 0) {
    snprintf(r->cache_note, sizeof r->cache_note, "read %s", path);
    return 0;
  }
  snprintf(r->cache_note, sizeof r->cache_note, "ignored %s: %s", path, why);
  return 1;
}

/* The choices from tune_apart (step_tune_options): 0, with its slots and
 * evidence in r; else 1, with the note saying why, and r as it was. */
static int from_apart(step_tune_report *r, const step_tune_target *t,
                      const step_tune_options *o) {
  tune_cache_entry *entry = malloc(sizeof *entry);
  step_tune_report *apart = malloc(sizeof *apart);
  char why[256] = "it failed (see above)";
  int status = entry && apart ? 0 : -1;
  double started = host_clock_ms();
  if (status == 0) {
    entry->count = -1; /* written only when the copy chose (keep) */
    status = o->tune_apart(o->apart_arg, NULL, apart, entry);
  }
  r->apart_setup_ms =
      host_clock_ms() - started - (status == 0 ? apart->choose_ms : 0);
  /* Its slots and evidence, over this step's calls; its choices taken as
   * it stored them (lt_matmul_candidate_adopt: no list asked for here). */
  if (status == 0)
    status = tune_apart_accept(apart, entry, r->call_count, why, sizeof why);
  if (status == 0)
    status =
        step_slots_from_entry(&apart->chosen, t->ctx, r->calls, apart->slots,
                              apart->slot_count, entry, 1, why, sizeof why);
  if (status == 0) {
    r->slot_count = apart->slot_count;
    memcpy(r->slots, apart->slots, sizeof r->slots);
    r->chosen = apart->chosen;
    r->log = apart->log;
    /* Way values name the same ways in every context (the times that
     * decided them are the context apart's). */
    r->start = apart->start;
    r->has_start = apart->has_start;
    r->start_fused = apart->start_fused;
    r->narrow = apart->narrow;
  }
  size_t at = strlen(r->cache_note);
  r->apart = status == 0;
  if (status != 0)
    snprintf(r->cache_note + at, sizeof r->cache_note - at,
             "%snot tuned in a context of its own: %s; tuned here",
             at ? "; " : "", why);
  free(apart);
  free(entry);
  return status == 0 ? 0 : 1;
}

/* Writes the chosen set to the cache (unless it came from there) and
 * fills the fingerprint. */
static int keep(step_tune_report *r, const step_tune_target *t,
                const step_tune_options *o, const char *path, const char *key) {
  tune_cache_entry entry;
  if (step_slots_entry(&entry, t->ctx, r->calls, r->slots, r->slot_count,
                       &r->chosen, key) != 0)
    return -1;
  r->fingerprint = entry.fingerprint;
  if (o->entry) *o->entry = entry;
  if (o->cache == TUNE_CACHE_OFF || r->from_cache || !path[0]) return 0;
  char why[256] = "";
  size_t at = strlen(r->cache_note);
  if (tune_cache_write(path, &entry, why, sizeof why) == 0)
    snprintf(r->cache_note + at, sizeof r->cache_note - at, "; wrote %s", path);
  else
    snprintf(r->cache_note + at, sizeof r->cache_note - at, "; not written: %s",
             why);
  return 0;
}

int step_tune_run(step_tune_report *r, const step_tune_target *t,
                  const step_tune_options *o) {
  double started = host_clock_ms();
  memset(r, 0, sizeof *r);
  if (t->ctx->options.autotune == GPU_AUTOTUNE_OFF && t->mode != MLP_MODE_AUTO)
    return 0;
  r->tuned = 1;
  r->call_count =
      mlp_step_calls(t->net, t->d_x, t->n, t->ctx->options.chain, r->calls);
  char key[TUNE_CACHE_KEY_MAX];
  char dir[2048] = "", path[4096] = "";
  make_key(key, sizeof key, t, o, r->calls, r->call_count);
  if (o->cache != TUNE_CACHE_OFF &&
      (o->cache_dir ? snprintf(dir, sizeof dir, "%s", o->cache_dir) <= 0
                    : tune_cache_default_dir(dir, sizeof dir) != 0))
    snprintf(r->cache_note, sizeof r->cache_note,
             "no folder for it: set $HOME, $XDG_CACHE_HOME or "
             "--tune-cache-dir");
  else if (o->cache != TUNE_CACHE_OFF &&
           tune_cache_path(path, sizeof path, dir, key) != 0)
    snprintf(r->cache_note, sizeof r->cache_note, "its path is too long");
  r->slot_count = 0;
  if (path[0] && o->cache == TUNE_CACHE_USE)
    r->from_cache = from_cache(r, t, path, key) == 0;
  else if (path[0])
    snprintf(r->cache_note, sizeof r->cache_note, "refreshed");
  if (o->check) {
    int status = step_check_run(r, t, o);
    r->choose_ms = host_clock_ms() - started;
    return status;
  }
  int apart = !r->from_cache && o->tune_apart && from_apart(r, t, o) == 0;
  int unchecked = apart && step_check_apart(r, t, o, key) != 0;
  if (unchecked && path[0]) {
    size_t at = strlen(r->cache_note);
    snprintf(r->cache_note + at, sizeof r->cache_note - at,
             "%snot written: the check in a fresh context did not run",
             at ? "; " : "");
    path[0] = '\0';
  }
  if (!r->from_cache && !apart && tune(r, t, o) != 0) {
    /* The network keeps the warm-up's choices: cuBLASLt's first
     * candidates, and under auto every call fused. */
    fprintf(stderr,
            "step_tune: note: tuning the step failed (%s); every call runs "
            "cuBLASLt's first candidate%s\n",
            lt_last_error(t->ctx), t->mode == MLP_MODE_AUTO ? ", fused" : "");
    memset(&r->chosen, 0, sizeof r->chosen);
    r->slot_count = 0;
    snprintf(r->cache_note, sizeof r->cache_note,
             "tuning failed: cuBLASLt's first candidates kept");
    step_slots_apply(t->net, r->calls, r->slots, 0, &r->chosen, t->n);
    if (t->mode == MLP_MODE_AUTO) mlp_set_ways(t->net, LT_AUTO_FUSED);
    r->choose_ms = host_clock_ms() - started;
    /* The failed call's error is said above; only one that outlives it
     * (sticky: the stream cannot run) fails the run. */
    (void)cudaGetLastError();
    return cudaStreamSynchronize(t->ctx->stream) == cudaSuccess ? 0 : -1;
  }
  step_slots_apply(t->net, r->calls, r->slots, r->slot_count, &r->chosen, t->n);
  if (keep(r, t, o, path, key) != 0)
    fprintf(stderr, "step_tune: note: the chosen set could not be named "
                    "(no fingerprint, nothing cached)\n");
  r->choose_ms = host_clock_ms() - started;
  return 0;
}
