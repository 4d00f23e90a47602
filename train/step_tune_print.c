/* step_tune_print.c: the step tuner's report, as --show-plans prints it
 * (step_tune.h). */
#include <stdio.h>

#include "train/step_tune.h"

static const char *field_name(tune_field f) {
  return f == TUNE_FIELD_ALGO    ? "algo"
         : f == TUNE_FIELD_PLAIN ? "twin"
         : f == TUNE_FIELD_SPLIT ? "split"
                                 : "way";
}

static const char *way_name(int way) {
  return way == LT_AUTO_FUSED          ? "fused"
         : way == LT_AUTO_UNFUSED      ? "unfused"
         : way == LT_AUTO_SPLIT        ? "split"
         : way == TUNE_WAYS_ALONE      ? "ways alone"
         : way == TUNE_NEAR_WINNERS    ? "near winners together"
         : way == TUNE_UNTUNED         ? "untuned"
         : way == TUNE_CHOSEN          ? "chosen"
         : way == TUNE_START           ? "start"
         : way == TUNE_FROM_FUSED      ? "searched from fused"
         : way == TUNE_FROM_UNFUSED    ? "searched from unfused"
         : way == TUNE_FROM_WAYS_ALONE ? "searched from the ways alone"
         : way == TUNE_OFF_SET         ? "off's set"
         : way == TUNE_TUNED           ? "tuned"
                                       : "-";
}

/* A slot's value: "#3" for a candidate, the name for a way. */
static void value_text(char *out, size_t size, const tune_slot *s, int v) {
  if (s->field == TUNE_FIELD_WAY)
    snprintf(out, size, "%s", way_name(v));
  else
    snprintf(out, size, "#%d", v);
}

static int accepted(const tune_slot *s) {
  int n = 0;
  for (int v = 0; v < s->count; v++)
    n += s->ok[v] != 0;
  return n;
}

/* A way slot's note: whether the call may go split, and each way's time
 * alone where the ways were timed (not when the choices came from the
 * cache). */
static void print_way(FILE *out, const tune_slot *s, const mlp_call *call) {
  const char *split = !lt_epilogue_has_split(call->call.shape.epilogue)
                          ? "no split"
                      : s->ok[LT_AUTO_SPLIT] ? "split possible"
                                             : "split refused";
  fprintf(out, " (%s", split);
  if (s->alone_us[LT_AUTO_FUSED] > 0.0f) {
    fprintf(out, "; us alone: fused %.1f, unfused %.1f",
            s->alone_us[LT_AUTO_FUSED], s->alone_us[LT_AUTO_UNFUSED]);
    if (s->alone_us[LT_AUTO_SPLIT] > 0.0f)
      fprintf(out, ", split %.1f", s->alone_us[LT_AUTO_SPLIT]);
  }
  fprintf(out, ")\n");
}

static void print_slots(FILE *out, const step_tune_report *r) {
  fprintf(out, "  %-16s %-5s %-8s %s\n", "call", "slot", "chosen",
          r->from_cache ? "(from the cache)"
                        : "(candidates offered, same numbers; us alone: "
                          "first / chosen)");
  for (int i = 0; i < r->slot_count; i++) {
    const tune_slot *s = &r->slots[i];
    char label[32], value[32];
    mlp_call_label(label, sizeof label, &r->calls[s->call]);
    value_text(value, sizeof value, s, r->chosen.value[i]);
    fprintf(out, "  %-16s %-5s %-8s", label, field_name(s->field), value);
    if (s->field == TUNE_FIELD_WAY)
      print_way(out, s, &r->calls[s->call]);
    else if (r->from_cache)
      fprintf(out, "\n");
    else
      fprintf(out, " (%d, %d; %.1f / %.1f)\n", s->count, accepted(s),
              s->alone_us[0], s->alone_us[r->chosen.value[i]]);
  }
}

/* Line i's heading under auto with a rule: before off's search's first
 * record and before the whole search's first. */
static void search_heading(FILE *out, const tune_log *log, int i) {
  if (log->off_records > 0 && (i == 0 || i == log->off_records))
    fprintf(out, "   %s\n",
            i == 0 ? "the search --autotune off runs, every algorithm the "
                     "first (no other candidate loaded yet):"
                   : "the whole search, every candidate checked:");
}

/* Where the whole search stopped at off's set (tune_log.off_repeated): the
 * line saying so, before the check's row or after the last. */
static void say_off_stop(FILE *out) {
  fprintf(out, "    no algorithm moved: the rest would run off's search "
               "again, so off's set stands\n");
}

static void print_evidence(FILE *out, const step_tune_report *r) {
  const tune_log *log = &r->log;
  char alone[64] = "";
  if (log->ways_alone_ms > 0.0)
    snprintf(alone, sizeof alone, "; %.1f ms deciding the calls' ways alone",
             log->ways_alone_ms);
  fprintf(out,
          "  evidence: %d comparisons in the step, %.1f ms of timed steps "
          "(budget %.0f ms%s%s)%s; ms per step incumbent / challenger, median "
          "difference +- noise (pairs):\n",
          log->comparisons, log->spent_ms, log->budget_ms,
          log->off_records > 0 ? " a search" : "",
          log->budget_hit ? ", spent: what was not visited keeps the "
                            "heuristic's order"
                          : "",
          alone);
  int stop_said = !log->off_repeated;
  for (int i = 0; i < log->count; i++) {
    const tune_record *c = &log->record[i];
    const tune_verdict *v = &c->verdict;
    search_heading(out, log, i);
    if (!stop_said && c->slot < 0 && c->to == TUNE_CHOSEN) {
      say_off_stop(out);
      stop_said = 1;
    }
    char label[48] = "the whole step", from[32] = "", to[32] = "";
    if (c->slot >= 0) {
      const tune_slot *s = &r->slots[c->slot];
      char call[32];
      mlp_call_label(call, sizeof call, &r->calls[s->call]);
      snprintf(label, sizeof label, "%s %s", call, field_name(s->field));
      value_text(from, sizeof from, s, c->from);
      value_text(to, sizeof to, s, c->to);
    } else {
      if (c->to == TUNE_CHOSEN)
        snprintf(label, sizeof label, "a fresh context");
      snprintf(from, sizeof from, "%s",
               c->to == TUNE_NEAR_WINNERS ? "incumbent" : way_name(c->from));
      snprintf(to, sizeof to, "%s", way_name(c->to));
    }
    if (v->refused) {
      fprintf(out, "    %-22s %s -> %s: refused (could not run)\n", label, from,
              to);
      continue;
    }
    fprintf(out, "    %-22s %s -> %s: %.4f / %.4f, %+.4f +- %.4f (%d): %s",
            label, from, to, v->base_ms, v->cand_ms, v->diff_ms, v->noise_ms,
            v->pairs,
            v->wins    ? "wins"
            : v->early ? "out early"
                       : "kept incumbent");
    if (c->slot < 0 && c->to == TUNE_CHOSEN) {
      char first[48] = "";
      if (log->untuned_first_ms > 0.0)
        snprintf(first, sizeof first, " (a first round %.4f)",
                 log->untuned_first_ms);
      /* "the start step", "the untuned step", "the off's set step" */
      const char *set = c->from == TUNE_OFF_SET ? "off's" : from;
      fprintf(out,
              "; before the chosen set was loaded the %s step ran %.4f +- "
              "%.4f%s%s: %s set kept",
              from, log->untuned_alone_ms, log->untuned_alone_noise_ms, first,
              log->check_ways_only ? " (ways only: the pairs decide)" : "",
              tune_log_check_keeps(log, v) ? "chosen" : set);
    }
    fprintf(out, "\n");
    /* The start is decided in the first search where there are two. */
    if (c->slot < 0 && c->from == LT_AUTO_FUSED && c->to == LT_AUTO_UNFUSED &&
        r->start_fused && (log->off_records == 0 || i < log->off_records))
      fprintf(out,
              "    (unfused won by under %g %%: the start the check "
              "defends is every call fused)\n",
              100.0 * r->narrow);
  }
  if (stop_said) return;
  search_heading(out, log, log->count);
  say_off_stop(out);
}

void step_tune_print(FILE *out, const step_tune_report *r) {
  if (!r->tuned) {
    fprintf(out, "\nstep tuner: nothing to choose (--autotune off): every "
                 "call runs cuBLASLt's first candidate\n");
    return;
  }
  char apart[160] = "";
  if (r->apart)
    snprintf(apart, sizeof apart,
             " in a CUDA context of its own (%.1f ms of it setting that up; "
             "its teardown runs beside the graphs' capture)",
             r->apart_setup_ms);
  fprintf(out, "\nstep tuner: fingerprint %08x, chosen in %.1f ms %s%s%s%s\n",
          r->fingerprint, r->choose_ms,
          r->from_cache ? "from the tuning cache" : "by timing the step", apart,
          r->cache_note[0] ? "; cache: " : "", r->cache_note);
  print_slots(out, r);
  if (!r->from_cache) print_evidence(out, r);
}
