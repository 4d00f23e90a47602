/* tune_search.h: the step tuner's search (train/step_tune.h), plain C over
 * an abstract step so that it is tested with a fake timer
 * (tests/test_tune_search.c).
 *
 * The step has slots: one choice each (the algorithm of a call's plan, of
 * its unfused twin's GEMM or of its split GEMM, or under --mode auto the
 * call's way), and a configuration gives every slot a value. The search
 * starts from an incumbent (the caller's: cuBLASLt's first candidates)
 * and visits the slots it is given in order of their share of the step
 * (way slots, which have no time alone, in the order of the calls)
 * (the incumbent value's time alone, largest first). Per slot it tries at
 * most TUNE_PER_SLOT challengers: the values the autotune rule accepts,
 * fastest alone first (values within TUNE_ALONE_TIE of each other alone in
 * the heuristic's order), and only those within TUNE_ALONE_WINDOW of the
 * incumbent alone (so a candidate that is much slower alone is not worth
 * a step's time; one that wins alone must still win in the step). Each is
 * judged by tune_rule.h in the step; a winner becomes the incumbent and
 * gets up to TUNE_PER_SLOT challengers of its own, chosen the same way
 * among the values not yet tried in the slot (so a value third in the
 * order is reached when the first wins; each value is tried once). Ways
 * that were faster beyond TUNE_NEAR_K times the noise but short of their
 * floor (near winners: on the H200, 784-1024-1024-10 TF32 auto's first and
 * second forward unfused gained 1.3-4.2 % each, and crossed the 3 % floor
 * in one process of three) are tried together after the visits (or when
 * the budget ends them), as one challenger judged by the way floor,
 * whatever the budget (when there are two or more). The nomination asks
 * half the rule's margin (TUNE_NEAR_K 2, the rule's k 4): it only picks
 * what the one comparison together tries, and that comparison is judged
 * by the whole rule. At k 4 the same row nominated its second forward
 * alone (-2.4 +- 0.2 us), not its first (-1.8 +- 0.5) or its second data
 * gradient (-1.0 +- 0.3), so nothing was tried together, and it ran
 * 19.78 ms an epoch all fused against 18.18 for --autotune off's mix
 * (docs/performance.md, "Session 13"). The
 * search stops when the budget (GPU time spent in timed steps) is spent,
 * and says so: what was not visited keeps the heuristic's choice.
 */
#ifndef MNIST_EPILOGS_TUNE_SEARCH_H
#define MNIST_EPILOGS_TUNE_SEARCH_H

#include "train/tune_rule.h"

enum {
  TUNE_MAX_SLOTS = 160,  /* slots of one step (3 per call, at most
                            MLP_MAX_STEP_CALLS calls) */
  TUNE_MAX_VALUES = 32,  /* values of one slot (LT_MAX_CANDIDATES) */
  TUNE_PER_SLOT = 2,     /* challengers per incumbent of a slot */
  TUNE_MAX_RECORDS = 160 /* comparisons kept for the report */
};
#define TUNE_ALONE_WINDOW 1.10
#define TUNE_ALONE_TIE 1.10

/* A whole-step record's `to` (slot -1) naming the step whose calls go the
 * ways they take alone (train/step_tune.h), or the incumbent with its near
 * winners together (tune_search, from 0: the incumbent); a record's other
 * values below TUNE_WAYS_ALONE are ways (every call fused, every call
 * unfused; step_search.c asserts it). The check in a fresh context
 * (step_tune.h) records TUNE_UNTUNED (what an untuned run of the step
 * runs) -> TUNE_CHOSEN, or under --mode auto TUNE_START (the start's ways,
 * tune_auto_start, cuBLASLt's first candidates in every algorithm slot)
 * -> TUNE_CHOSEN. After a near tie of the tuned whole steps
 * (tune_search_other_start) the two way searches' ends are named by where
 * each started: TUNE_FROM_FUSED, TUNE_FROM_UNFUSED, or
 * TUNE_FROM_WAYS_ALONE when the calls' ways alone had replaced the better
 * step before the first search. Under auto with a rule the whole search's
 * end is weighed against the set the search --autotune off runs picked
 * (tune_weigh_against_off): TUNE_OFF_SET -> TUNE_TUNED; a check in a
 * fresh context that defends off's set records TUNE_OFF_SET ->
 * TUNE_CHOSEN. */
enum {
  TUNE_WAYS_ALONE = 4,
  TUNE_NEAR_WINNERS = 5,
  TUNE_UNTUNED = 6,
  TUNE_CHOSEN = 7,
  TUNE_START = 8,
  TUNE_FROM_FUSED = 9,       /* the way search's end from the fused step */
  TUNE_FROM_UNFUSED = 10,    /* ... from the unfused step */
  TUNE_FROM_WAYS_ALONE = 11, /* ... from the calls' ways alone */
  TUNE_OFF_SET = 12, /* the ways --autotune off picks, every algorithm the
                        first (step_search.c, auto with a rule) */
  TUNE_TUNED = 13    /* the whole search's end, weighed against off's set */
};

/* What a slot chooses. Algorithm values are candidate indices in the
 * heuristic's order (0: its first); way values are lt_auto_choice values
 * (1 fused, 2 unfused, 3 split). */
typedef enum tune_field {
  TUNE_FIELD_ALGO,  /* the call's own plan */
  TUNE_FIELD_PLAIN, /* its DEFAULT twin's (the unfused way's GEMM) */
  TUNE_FIELD_SPLIT, /* its split GEMM's (no such slot is built yet: the
                       split way runs the heuristic's first candidate) */
  TUNE_FIELD_WAY    /* --mode auto: fused, unfused or split */
} tune_field;

typedef struct tune_slot {
  int call; /* the step's call it belongs to */
  tune_field field;
  int count;                         /* values 0 .. count - 1 */
  unsigned char ok[TUNE_MAX_VALUES]; /* 1: may be chosen */
  float alone_us[TUNE_MAX_VALUES];   /* the value alone (a way: the call
                                        gone that way, in a graph, for the
                                        report); 0: not known */
} tune_slot;

typedef struct tune_config {
  unsigned char value[TUNE_MAX_SLOTS];
} tune_config;

/* The step, as the search sees it. measure() times `pairs` interleaved
 * pairs of steps, configuration a (the incumbent) against b: base[i] and
 * cand[i] in ms per step, *spent_ms the GPU time the samples took. Returns
 * 0; 1 when b cannot run (refused by cuBLASLt: it loses, nothing timed);
 * or -1 on an error (the search stops with -1). */
typedef struct tune_ops {
  void *self;
  int (*measure)(void *self, const tune_config *a, const tune_config *b,
                 int pairs, float *base, float *cand, double *spent_ms);
} tune_ops;

/* One comparison, for the report: slot `slot` from value `from` (the
 * incumbent's) to `to`; slot -1 for a comparison of two whole
 * configurations (tune_compare). */
typedef struct tune_record {
  int slot, from, to;
  tune_verdict verdict;
} tune_record;

typedef struct tune_log {
  tune_record record[TUNE_MAX_RECORDS];
  int count;               /* records kept (at most TUNE_MAX_RECORDS) */
  int comparisons;         /* comparisons made */
  double spent_ms;         /* GPU time in timed steps */
  double budget_ms;        /* the most spent_ms may reach before a comparison */
  int budget_hit;          /* 1: a comparison was left out for the budget */
  double ways_alone_ms;    /* wall clock of deciding the calls' ways alone
                              (--mode auto, step_search.c), outside the budget;
                              0 when not decided */
  double untuned_alone_ms; /* the check in a fresh context (step_tune.h):
                              the defended step (untuned; under auto the
                              start), ms, timed before the chosen set's
                              kernels were loaded, in a second round; 0:
                              no check */
  double untuned_alone_noise_ms; /* its noise (tune_noise) */
  double untuned_first_ms;       /* its median in the first round (step_check.c:
                                    printed, not judged) */
  int check_ways_only;           /* 1: the checked sets differ in ways only
                                    (tune_rule_check) */
  int off_records;  /* under auto with a rule: the first records, those of
                       the search --autotune off runs (step_search.c) */
  int off_repeated; /* 1: the whole search moved no algorithm, so the rest
                       of it would have run off's search again: off's set
                       stands, not searched twice (step_search.c) */
} tune_log;

/* A log with this budget, nothing spent. */
void tune_log_init(tune_log *log, double budget_ms);

/* Whether the check in a fresh context whose verdict is v (the chosen set
 * against the untuned one) keeps the chosen set: tune_rule_check on the
 * log's untuned step alone and check_ways_only, at TUNE_MIN_GAIN_STEPS. */
int tune_log_check_keeps(const tune_log *log, const tune_verdict *v);

/* The floor a challenger in slot s must gain (tune_rule.h):
 * TUNE_FLOOR_WAY for a call's way, TUNE_FLOOR_ALGO for an algorithm. */
tune_floor tune_slot_floor(const tune_slot *s);

/* Compares b with a in the step (two stages, tune_rule.h) and logs it
 * under `slot`, `from`, `to`; b must gain `floor` (tune_slot_floor for a
 * slot's challenger). *wins = 1 when b replaces a. Returns 0, 1 when the
 * budget was spent before it began (nothing measured, *wins = 0), or -1
 * when measure failed. */
int tune_compare(int *wins, const tune_config *a, const tune_config *b,
                 const tune_ops *ops, tune_log *log, int slot, int from, int to,
                 tune_floor floor);

/* tune_compare whatever the budget (its time counted in it all the same),
 * for a comparison the run cannot do without: --mode auto's tuned fused
 * against tuned unfused step (floor TUNE_FLOOR_STEPS), the better one
 * against its calls' ways alone, and a search's near winners together
 * (TUNE_FLOOR_WAY: several calls' ways changed at once). *out (may be
 * NULL) = the verdict, zeroed when nothing was judged. */
int tune_compare_always(int *wins, const tune_config *a, const tune_config *b,
                        const tune_ops *ops, tune_log *log, int slot, int from,
                        int to, tune_floor floor, tune_verdict *out);

/* Visits slots visit[0 .. visit_count) as above, from *incumbent, which
 * ends as the best configuration found. Returns 0 (budget spent or not:
 * see log->budget_hit), or -1 when measure failed. */
int tune_search(tune_config *incumbent, const tune_slot *slots,
                const int *visit, int visit_count, const tune_ops *ops,
                tune_log *log);

/* Under --mode auto, whether the tuned all-fused and all-unfused steps
 * (verdict v, fused the incumbent) came out within `narrow`
 * (TUNE_AUTO_NARROW) of fused's step, either way: the timed step cannot
 * tell which of them is the better start for the way search (in a
 * context apart it mis-times whole steps by up to that much:
 * tune_auto_start). */
int tune_steps_tied(const tune_verdict *v, double narrow);

/* After the search from *incumbent: the same search (visit[0 ..
 * visit_count)) from *other, with `budget` ms of timed steps of its own,
 * then its end against the incumbent's, whole step against whole step,
 * whatever the budget (TUNE_FLOOR_STEPS; the record's `from` -> `to`):
 * *incumbent = the better one (the incumbent on a tie). For a near tie of
 * the whole steps (tune_steps_tied): a search one call at a time ends
 * where no single way gains its floor, which depends on the start. On the
 * H200, 784-1024-1024-10 TF32 ReLU's search from the fused step ended at
 * steps whose epochs ran 19.11-20.16 ms, from the unfused step at ones
 * that ran 18.04-18.69 (docs/performance.md, "Session 22"). Returns 0, or
 * -1 when a comparison failed. */
int tune_search_other_start(tune_config *incumbent, tune_config *other,
                            const tune_slot *slots, const int *visit,
                            int visit_count, const tune_ops *ops, tune_log *log,
                            double budget, int from, int to);

/* The challengers of slot `s` against value `current`, in the order they
 * are tried: out[0 .. returned count), at most TUNE_PER_SLOT. */
int tune_challengers(int *out, const tune_slot *s, int current);

/* *out = c with cuBLASLt's first candidate (value 0) in every algorithm
 * slot (own plan, twin, split) and c's ways: the step an untuned run of
 * the same ways runs. Returns tune_algorithms_moved(c, ...) (0: *out is
 * c). */
int tune_first_algorithms(tune_config *out, const tune_config *c,
                          const tune_slot *slots, int count);

/* How many algorithm slots (own plan, twin, split) of c hold a candidate
 * other than cuBLASLt's first. */
int tune_algorithms_moved(const tune_config *c, const tune_slot *slots,
                          int count);

/* Under --mode auto with a rule (exact, fast): *tuned, the whole search's
 * end, against *off, the ways the search --autotune off runs picked (every
 * algorithm slot cuBLASLt's first), in the step whatever the budget, off's
 * set the incumbent (record TUNE_OFF_SET -> TUNE_TUNED; none when the two
 * are the same): by the way floor where they differ in ways only (the
 * question off's search answered, asked again with every candidate's
 * kernels loaded), else by the whole steps' floor. *tuned = the winner.
 * Returns 0 or -1 (a comparison failed). */
int tune_weigh_against_off(tune_config *tuned, const tune_config *off,
                           const tune_slot *slots, int count,
                           const tune_ops *ops, tune_log *log);

/* After tune_weigh_against_off: the start a check in a fresh context
 * defends (tune_defended takes its ways) and its narrow flag: where
 * `chosen` is off's set, off's start and flag, as off's own check would
 * defend (tune_auto_start); else off's set itself, no flag. Returns the
 * record name: TUNE_START, or TUNE_OFF_SET. */
int tune_off_defended(tune_config *start, int *start_fused,
                      const tune_config *chosen, const tune_config *off,
                      const tune_config *off_start, int off_start_fused);

/* *out = the set a check in a fresh context defends against `chosen`
 * (train/step_check.h): cuBLASLt's first candidate in every algorithm
 * slot, and the ways of `start` when not NULL (--mode auto:
 * tune_auto_start's, chosen beside the tuned algorithms, so this set is
 * neither one the search timed nor what an untuned auto run runs: its ways
 * alone), else chosen's. Returns 1 when *out differs from chosen, else
 * 0. */
int tune_defended(tune_config *out, const tune_config *chosen,
                  const tune_config *start, const tune_slot *slots, int count);

/* Under --mode auto, the start a check in a fresh context defends
 * (tune_defended; step_tune.h): *start = *best (the step the way search
 * starts from), except where best runs every call unfused (the ways alone
 * did not beat it) after the tuned all-unfused step beat the tuned
 * all-fused one (verdict `v`, fused the incumbent) by less than `narrow`
 * (TUNE_AUTO_NARROW; step_search.h says how a run sets another) of fused's
 * step: then best with fused's ways, so that the check weighs the choice
 * against the all-fused step with cuBLASLt's first candidates (the set the
 * run takes if the choice loses). `v` NULL: no verdict, best itself. The
 * context apart mis-times the whole steps by more than their floor: on
 * the H200 it had 784-1024-1024-10 FP32 GELU's tuned unfused step 0.7 %
 * ahead of fused (0.1322 against 0.1332 ms), whose epochs ran 3.7 %
 * behind (133.3 against 128.4 us a step), and auto took all-unfused in one
 * process of six (docs/performance.md, "Session 20"); a fresh context's
 * pairs agreed with the epochs there. 2 %: the narrow wins in the logs of
 * sessions 15-20 are 0.7-1.6 % and one of 2.2 % (784-100-10 FP32 GELU,
 * whose unfused ran 4 % ahead in its epochs too: left unchecked), and the
 * default network's unfused won by 3.6-4.6 % apart (4.6 % in its epochs),
 * so its first run pays no check.
 * Returns 1 when the start is fused's ways, else 0. */
#define TUNE_AUTO_NARROW 0.02
int tune_auto_start(tune_config *start, const tune_config *best,
                    const tune_config *fused, const tune_config *unfused,
                    const tune_verdict *v, double narrow,
                    const tune_slot *slots, int count);

#endif
