/* step_tune.c: the step tuner's course (step_tune.h): the cache, the copy
 * in a context apart, the choices kept and applied (the search in its
 * phases: step_search.c; the check in a fresh context: step_check.c). */
#include "train/step_tune.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_check.h"
#include "lt/lt_auto.h"
#include "train/host_clock.h"
#include "train/step_check.h"
#include "train/step_search.h"
#include "train/step_slots.h"
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
      "rule 10; %s; gpu %s; sms %d; driver %d; cublaslt %zu; chain %s; "
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

/* r's slots, and its chosen set as `entry` names it: 0, else -1 with why. */
static int take_entry(step_tune_report *r, const step_tune_target *t,
                      const tune_cache_entry *entry, char *why, size_t size) {
  r->slot_count = step_slots_build(r->slots, t, r->calls, r->call_count, 0);
  if (r->slot_count < 0) {
    snprintf(why, size, "this step's choices could not be listed");
    return -1;
  }
  return step_slots_from_entry(&r->chosen, t->ctx, r->calls, r->slots,
                               r->slot_count, entry, 0, why, size);
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
  if (read == 0 && take_entry(r, t, &entry, why, sizeof why) == 0) {
    snprintf(r->cache_note, sizeof r->cache_note, "read %s", path);
    return 0;
  }
  snprintf(r->cache_note, sizeof r->cache_note, "ignored %s: %s", path, why);
  return 1;
}

/* The choices of another trainer of this step (step_tune_options.given):
 * 0, else 1 (the note says why). */
static int from_given(step_tune_report *r, const step_tune_target *t,
                      const tune_cache_entry *given, const char *key) {
  char why[256] = "its key is another step's";
  if (strcmp(given->key, key) == 0 &&
      take_entry(r, t, given, why, sizeof why) == 0) {
    snprintf(r->cache_note, sizeof r->cache_note,
             "not read: the choices of an earlier trainer of this step");
    return 0;
  }
  snprintf(r->cache_note, sizeof r->cache_note,
           "an earlier trainer's choices not taken: %s", why);
  return 1;
}

/* The choices from tune_apart (step_tune_options): 0, with its slots and
 * evidence in r; else 1, with the note saying why, and r as it was. */
static int from_apart(step_tune_report *r, const step_tune_target *t,
                      const step_tune_options *o) {
  step_tune_report *apart = malloc(sizeof *apart);
  char why[256] = "it failed (see above)";
  int status = apart ? 0 : -1;
  if (!apart) fprintf(stderr, "step_tune: out of host memory\n");
  double started = host_clock_ms();
  if (status == 0) status = o->tune_apart(o->apart_arg, NULL, apart);
  r->apart_setup_ms =
      host_clock_ms() - started - (status == 0 ? apart->choose_ms : 0);
  /* Its slots and evidence, over this step's calls; its choices taken as
   * it stored them (lt_matmul_candidate_adopt: no list asked for here). */
  if (status == 0)
    status = tune_apart_accept(apart, r->call_count, why, sizeof why);
  if (status == 0)
    status = step_slots_from_entry(&apart->chosen, t->ctx, r->calls,
                                   apart->slots, apart->slot_count,
                                   &apart->entry, 1, why, sizeof why);
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
    r->defended_from = apart->defended_from;
    r->narrow = apart->narrow;
  }
  size_t at = strlen(r->cache_note);
  r->apart = status == 0;
  if (status != 0)
    snprintf(r->cache_note + at, sizeof r->cache_note - at,
             "%snot tuned in a context of its own: %s; tuned here",
             at ? "; " : "", why);
  free(apart);
  return status == 0 ? 0 : 1;
}

/* Writes the chosen set to the cache (unless it came from there) and
 * fills the fingerprint. */
static int keep(step_tune_report *r, const step_tune_target *t,
                const step_tune_options *o, const char *path, const char *key) {
  if (step_slots_entry(&r->entry, t->ctx, r->calls, r->slots, r->slot_count,
                       &r->chosen, key) != 0)
    return -1;
  r->fingerprint = r->entry.fingerprint;
  r->has_entry = 1;
  if (o->cache == TUNE_CACHE_OFF || r->from_cache || !path[0]) return 0;
  char why[256] = "";
  size_t at = strlen(r->cache_note);
  if (tune_cache_write(path, &r->entry, why, sizeof why) == 0)
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
  if (o->given)
    r->from_cache = from_given(r, t, o->given, key) == 0;
  else if (path[0] && o->cache == TUNE_CACHE_USE)
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
  if (!r->from_cache && !apart && step_search_tune(r, t, o) != 0) {
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
