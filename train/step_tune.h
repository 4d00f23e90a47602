/* step_tune.h: the step tuner. Chooses, for one network and batch, which
 * of cuBLASLt's candidates each call of the training step runs (the
 * algorithm of its own plan, of its unfused twin's GEMM) and, under --mode
 * auto, which way each call goes (fused, unfused, split), by timing the
 * whole step where it is paid: captured as a CUDA graph, replayed in
 * interleaved pairs, judged by tune_rule.h, searched by tune_search.h.
 *
 * Start: cuBLASLt's first candidates everywhere. Under --mode auto with a rule
 * (exact, fast), first the search --autotune off runs: the slots listed
 * unchecked, so that no other candidate's kernel is loaded while its ways are
 * timed, every algorithm the first; then the slots checked and the whole search
 * below, whose end replaces off's set only by beating it in the step
 * (tune_weigh_against_off: by the way floor where the two differ in ways only).
 * So where no algorithm wins and no other set of ways beats off's by the way
 * floor, the run takes what off's search picks, as off does
 * (docs/performance.md, "Session 28"); where neither step's algorithms move,
 * the whole search stops there with off's set, its rest being off's search
 * again (session 29). The whole search under --mode auto: the
 * algorithms of the all-fused step, then of the all-unfused step (half the
 * budget each), then the two tuned steps against each other (always, whatever
 * the budget; fused on a tie), then the better one against the same step with
 * each call's way as the call takes it alone (lt_matmul_auto_choice: what auto
 * runs untuned; always, when a way differs, by the way floor), then each call's
 * way from the best (what is left of 1.5 budgets, and at least one budget), and
 * after a near tie of the two tuned steps from the other one too, with a budget
 * more, the better end kept (tune_search_other_start): that search spends up to
 * 2 budgets, 3 after a tie, and the unbudgeted whole-step comparisons; off's
 * search before it (with a rule) up to 1.5 more, 2.5 after a tie, each search's
 * budget counted from what the ones before it spent. Challengers are the
 * candidates the context's autotune rule accepts (lt_autotune.h: bit for bit
 * the first's numbers under exact, so a tuned run prints what --autotune off
 * prints). The replays train the network: its state is
 * snapshotted before and restored after (layers/mlp_snapshot.h), so tuning
 * changes nothing but speed.
 *
 * Where: given tune_apart (the trainer's default), a step the cache does
 * not hold is tuned by a copy of the run in a CUDA context of its own, and
 * this network takes its choices without asking cuBLASLt for candidate
 * lists, so its context loads only the kernels its step runs
 * (gpu/gpu_apart.h says what the others cost). That context has loaded every
 * candidate, and there the same step runs at another speed, so a choice that
 * differs from the set the check defends is checked by a second copy in a fresh
 * context. That set is what an untuned run runs, cuBLASLt's first candidates,
 * or under auto the start: those candidates with the ways the way search
 * started from (the better whole step, or the ways alone where they beat it),
 * except every call fused where unfused won the whole step by under 2 %
 * (tune_auto_start); with a rule, the start of off's search where its set won,
 * else off's set itself (step_tune_report.defended_from); ways chosen
 * beside the tuned algorithms, so the start is neither a set the search
 * timed nor what an untuned auto run runs, its ways alone: tune_defended.
 * The copy's warm-up loads the first candidates, as the run's does; it times
 * the defended step (under auto loading the twins its ways run) in two
 * rounds, the first only printed, then loads the chosen set's kernels and
 * times the two interleaved (tune_rule_check). So the chosen set is timed
 * beside the kernels the run's context will hold, and beside the defended
 * set's twins too, which that context will not. The defended set runs where
 * the check drops the choice. Under auto the start, not the ways alone, is
 * what the check defends: at the default network (session 12) the tuned
 * all-unfused step tied the ways alone in the check and lost to them there,
 * and ran 2 % faster in the epochs (docs/performance.md, "Session 13"). On
 * the H200 (docs/performance.md, "Session 11"): at a 1 % algorithm floor, an
 * algorithm 3-4 % faster in the first context lost 1-2 % in the epochs (the
 * check dropped it), one 1.4 % faster in the big network's FP8 step gained
 * 2 % (the check kept it); under auto, with no check of the ways,
 * 784-1024-1024-10 TF32 ReLU ran 1.031x and 1.094x --autotune off
 * (session 10's call E, session 11's call B), with it 0.945x and 0.962x
 * (calls C and D). A choice that differs from the untuned set in the calls'
 * ways only is kept when it wins the pairs (session 12: the guard against
 * the untuned step alone dropped way-only sets that ran 3.5-7 % faster;
 * tune_rule_check).
 *
 * The choices go to the network's layers (linear_layer.picks), so each
 * network (each mnist_bench row) keeps its own, and are kept in the
 * tuning cache (tune_cache.h), so the same command chooses the same way
 * every time and a second run spends no time tuning. --show-plans prints
 * the fingerprint of the chosen set and the evidence (step_tune_print).
 */
#ifndef MNIST_EPILOGS_STEP_TUNE_H
#define MNIST_EPILOGS_STEP_TUNE_H

#include <stdio.h>

#include "layers/mlp.h"
#include "train/tune_cache.h"
#include "train/tune_search.h"

/* The GPU time the search may spend in timed steps by default: tens of ms
 * (the default run trains for about 0.25 s on the H200, and tuning adds
 * its checks and captures to the wall clock). */
#define STEP_TUNE_BUDGET_MS 100.0

struct step_tune_report;
struct step_tune_check;

typedef struct step_tune_options {
  double budget_ms;      /* GPU time in timed steps (<= 0:
                            STEP_TUNE_BUDGET_MS) */
  tune_cache_mode cache; /* TUNE_CACHE_USE unless told */
  const char *cache_dir; /* NULL: tune_cache_default_dir */
  const char *run_key;   /* the run's part of the cache key: network,
                            batch, precision, mode, activation, padding, ...
                            (the trainer's; the tuner adds the GPU, driver,
                            library, chain, rule, workspace, alignments) */
  /* When set, a step the cache does not hold is tuned by tune_apart: the
   * same step in a CUDA context of its own (gpu_context_create_apart),
   * which fills `report` (its slots, choices, evidence and entry) and
   * returns 0; this network then takes the report's entry as it would the
   * cache's, so its context loads only the kernels it runs. When it
   * returns -1, or its copy's tuning failed (has_entry 0), the step is
   * tuned here. NULL: tuned here. Called again with `check` (else NULL)
   * when the choices differ from the set the check defends
   * (tune_defended): a copy in a fresh context checks them (the option
   * `check` below). */
  int (*tune_apart)(void *arg, const struct step_tune_check *check,
                    struct step_tune_report *report);
  void *apart_arg;
  /* Not NULL: the choices of another trainer of this step (its report's
   * entry), taken as the cache's would be, the cache not read; when they
   * do not fit (another key, a choice this step lacks) the note says why
   * and the step is tuned, the cache still not read. */
  const tune_cache_entry *given;
  /* Not NULL: no search; this step (a copy in a fresh context, whose
   * warm-up ran the first candidates) checks the set check->chosen names
   * against check->defended (tune_rule_check), and keeps the one that
   * wins. */
  const struct step_tune_check *check;
} step_tune_options;

/* The sets a check in a fresh context weighs (step_tune_options.check):
 * the context apart's choice, and the set the check defends (cuBLASLt's
 * first candidates; under --mode auto with the start's ways, as the
 * context apart decided them: tune_auto_start, tune_defended), with the
 * defended set's name in the report. */
typedef struct step_tune_check {
  const tune_cache_entry *chosen;
  const tune_cache_entry *defended;
  int from; /* TUNE_UNTUNED, or under auto TUNE_START for the start or
              TUNE_OFF_SET for off's set (step_tune_report.defended_from) */
} step_tune_check;

/* The step to tune: training steps of `net` on full batches of n samples
 * (d_x: the first one's inputs, for the step's calls), enqueued on
 * ctx->stream by enqueue_steps(arg, count): the epoch's first `count`
 * steps, as its graph runs them, or as many as it has full batches (at
 * least one); it returns how many it enqueued, or -1. */
typedef struct step_tune_target {
  gpu_context *ctx;
  mlp *net;
  mlp_mode mode;
  const void *d_x;
  int n;
  int (*enqueue_steps)(void *arg, int count);
  void *arg;
} step_tune_target;

typedef struct step_tune_report {
  int tuned;      /* 0: nothing to choose (--autotune off, fused/unfused) */
  int from_cache; /* 1: the choices came from the cache, or from
                     step_tune_options.given (cache_note says which) */
  int apart;      /* 1: tuned in a CUDA context of its own (tune_apart) */
  char cache_note[600];  /* what the cache did, one line ("" when off) */
  unsigned fingerprint;  /* FNV-1a of the chosen set (algorithms by their
                            index and attributes, ways by value), 32 bits */
  double choose_ms;      /* wall clock spent choosing */
  double apart_setup_ms; /* of it, setting up the context apart and its
                            copy of the run, and tearing the copy down (the
                            context itself goes on a thread of its own:
                            gpu_context_retire; 0: none) */
  int call_count;
  mlp_call calls[MLP_MAX_STEP_CALLS];
  int slot_count;
  tune_slot slots[TUNE_MAX_SLOTS];
  tune_config chosen;
  tune_log log;
  int has_start; /* 1: start holds, in its way slots, the ways the check
                    defends (--mode auto: tune_auto_start) */
  tune_config start;
  int defended_from; /* the check's record name for start: TUNE_START, or
                        TUNE_OFF_SET where it holds the ways --autotune off
                        picks (auto with a rule whose search ended apart
                        from them and beat them: step_search.c) */
  int start_fused;   /* 1: those ways are every call fused, after a narrow
                        unfused win of the whole step (tune_auto_start) */
  double narrow;     /* the narrow win's and the tie's bound used
                        (train/step_search.h) */
  int has_entry;     /* 1: entry names the chosen set (0: nothing tuned, the
                        tuning failed, the set could not be named, or a
                        check ran: step_tune_options.check) */
  tune_cache_entry entry; /* the chosen set as the cache stores it: what a
                             copy apart hands back (tune_apart), and
                             step_tune_options.given for a later trainer */
} step_tune_report;

/* Chooses as above and writes the choices into net's layers (picks at
 * batch n). The step's plans must exist (run it once first); nothing may
 * be capturing. When tuning fails (out of memory, a capture refused) it
 * says so on stderr and keeps the warm-up's choices (cuBLASLt's first
 * candidates; under auto every call fused) and the network's state, and
 * returns 0; -1 only when a CUDA error remains. */
int step_tune_run(step_tune_report *report, const step_tune_target *target,
                  const step_tune_options *options);

/* The report --show-plans prints: the fingerprint, where the choices came
 * from, each slot's choice, and every comparison's evidence. */
void step_tune_print(FILE *out, const step_tune_report *report);

#endif
