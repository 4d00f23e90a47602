/* tune_report_text.c: the step tuner's report read back (see
 * tune_report_text.h). */
#include "tests/tune_report_text.h"

#include <stdio.h>
#include <string.h>

#include "train/tune_rule.h"

/* The floor tune_rule.h holds a slot's challengers to (its field: the
 * last word of "weights 2 algo"; tune_slot_floor). */
static tune_floor slot_floor(const char *slot) {
  const char *field = strrchr(slot, ' ');
  return field && strcmp(field + 1, "way") == 0 ? TUNE_FLOOR_WAY
                                                : TUNE_FLOOR_ALGO;
}

/* line[0 .. len) without its leading and trailing blanks, into out. */
static void trimmed(char *out, size_t size, const char *line, size_t len) {
  while (len && *line == ' ')
    line++, len--;
  while (len && line[len - 1] == ' ')
    len--;
  snprintf(out, size, "%.*s", (int)len, line);
}

/* A slot row "  forward 1        way   unfused  (split possible; ...)":
 * the call, the field word, the value; only the part before "(" is read,
 * the field being the earliest field word there. */
static void read_slot(tune_report_text *r, const char *line, size_t len) {
  static const char *fields[] = {" algo ", " twin ", " split ", " way "};
  static const char *names[] = {"algo", "twin", "split", "way"};
  const char *paren = memchr(line, '(', len);
  size_t head = paren ? (size_t)(paren - line) : len;
  char text[128];
  snprintf(text, sizeof text, "%.*s ", (int)head, line);
  const char *at = NULL;
  int field = 0;
  for (int f = 0; f < 4; f++) {
    const char *hit = strstr(text, fields[f]);
    if (hit && (!at || hit < at)) at = hit, field = f;
  }
  if (!at || r->slots >= TUNE_MAX_SLOTS) return;
  char call[48];
  trimmed(call, sizeof call, text, (size_t)(at - text));
  snprintf(r->slot[r->slots], sizeof r->slot[0], "%s %s", call, names[field]);
  const char *value = at + strlen(fields[field]);
  value += strspn(value, " ");
  snprintf(r->value[r->slots], sizeof r->value[0], "%.*s",
           (int)strcspn(value, " "), value);
  r->slots++;
}

/* The gain -diff over the rule's line (tune_judge_line_ms): above 1 won. */
static double margin(double base, double diff, double noise, tune_floor floor) {
  double line_ms = tune_judge_line_ms(noise, floor, base);
  return line_ms > 0 ? -diff / line_ms : 0.0;
}

/* An evidence row "    weights 2 algo         #0 -> #1: 0.5825 / 0.5842,
 * +0.0019 +- 0.0004 (8): out early": its slot, values and margin.
 * Refused rows (nothing timed) are skipped; whole-step rows counted; the
 * row of the check in a fresh context ("a fresh context untuned ->
 * chosen: ...; before the chosen set was loaded the untuned step ran
 * ...", under auto "start" for "untuned", tune_rule_check) kept apart. */
static void read_verdict(tune_report_text *r, const char *line, size_t len) {
  char row[256];
  snprintf(row, sizeof row, "%.*s", (int)len, line);
  char *arrow = strstr(row, " -> ");
  if (!arrow) return;
  *arrow = '\0';
  char label[96];
  trimmed(label, sizeof label, row, strlen(row));
  if (strncmp(label, "the whole step", 14) == 0) {
    r->whole_steps++;
    return;
  }
  const char *colon = strstr(arrow + 4, ": ");
  double base, cand, diff, noise;
  int pairs;
  if (!colon || sscanf(colon, ": %lf / %lf, %lf +- %lf (%d)", &base, &cand,
                       &diff, &noise, &pairs) != 5)
    return;
  if (strncmp(label, "a fresh context", 15) == 0) {
    /* Both sides of tune_rule_check: the pairs, and the chosen set's
     * median against the first's before it was loaded. */
    const char *before = strstr(colon, " step ran ");
    double alone, alone_noise;
    r->checked = 1;
    r->check_margin = margin(base, diff, noise, TUNE_FLOOR_STEPS);
    if (before && !strstr(before, "(ways only") &&
        sscanf(before, " step ran %lf +- %lf", &alone, &alone_noise) == 2) {
      double m = (alone - cand) / tune_check_line_ms(noise, alone, alone_noise,
                                                     TUNE_MIN_GAIN_STEPS);
      if (m < r->check_margin) r->check_margin = m;
    }
    return;
  }
  char *from = strrchr(label, ' ');
  if (!from || r->verdicts >= TUNE_MAX_RECORDS) return;
  *from++ = '\0';
  char slot[96];
  trimmed(slot, sizeof slot, label, strlen(label));
  int v = r->verdicts++;
  snprintf(r->verdict[v].slot, sizeof r->verdict[v].slot, "%s", slot);
  snprintf(r->verdict[v].from, sizeof r->verdict[v].from, "%s", from);
  snprintf(r->verdict[v].to, sizeof r->verdict[v].to, "%.*s",
           (int)(colon - (arrow + 4)), arrow + 4);
  r->verdict[v].margin = margin(base, diff, noise, slot_floor(slot));
}

int tune_report_text_read(tune_report_text *r, const char *text) {
  memset(r, 0, sizeof *r);
  const char *tuner = strstr(text, "step tuner: fingerprint ");
  if (!tuner ||
      sscanf(tuner, "step tuner: fingerprint %8[0-9a-f]", r->fingerprint) != 1)
    return -1;
  r->budget_spent = strstr(tuner, "spent: what was not visited") != NULL;
  for (const char *line = strchr(tuner, '\n'); line && line[1];) {
    line++;
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    int indent = (int)strspn(line, " ");
    if (indent == 0) break; /* the report ends */
    if (indent == 2 && strncmp(line + 2, "call ", 5) != 0 &&
        strncmp(line + 2, "evidence:", 9) != 0)
      read_slot(r, line, len);
    else if (indent == 4)
      read_verdict(r, line, len);
    line = end;
  }
  return 0;
}

/* 1 when a comparison in `slot` with `x` or `y` on either side came out
 * near the rule's line (a margin from 1/2 to 2): where one process's
 * search went another way (also earlier in a chain of winners: #0 -> #2
 * near, then #2 -> #3 clearly, against #0 kept). */
static int near_the_line(const tune_report_text *r, const char *slot,
                         const char *x, const char *y) {
  for (int v = 0; v < r->verdicts; v++) {
    const char *from = r->verdict[v].from, *to = r->verdict[v].to;
    int involved = strcmp(from, x) == 0 || strcmp(to, x) == 0 ||
                   strcmp(from, y) == 0 || strcmp(to, y) == 0;
    if (strcmp(r->verdict[v].slot, slot) == 0 && involved &&
        r->verdict[v].margin >= 0.5 && r->verdict[v].margin <= 2.0)
      return 1;
  }
  return 0;
}

/* 1 when r checked its choices in a fresh context near the line and one
 * of x, y is the untuned value of an algorithm slot ("#0"): the check
 * takes every algorithm slot back to #0 or leaves it, so near its line
 * one process may have done either (it cannot turn #3 into #5). */
static int checked_near_the_line(const tune_report_text *r, const char *x,
                                 const char *y) {
  return r->checked && (strcmp(x, "#0") == 0 || strcmp(y, "#0") == 0) &&
         r->check_margin >= 0.5 && r->check_margin <= 2.0;
}

/* 1 when r tried `value` in `slot` (as incumbent or challenger). */
static int tried(const tune_report_text *r, const char *slot,
                 const char *value) {
  for (int v = 0; v < r->verdicts; v++)
    if (strcmp(r->verdict[v].slot, slot) == 0 &&
        (strcmp(r->verdict[v].from, value) == 0 ||
         strcmp(r->verdict[v].to, value) == 0))
      return 1;
  return 0;
}

int tune_report_text_differ(const tune_report_text *a,
                            const tune_report_text *b, char *why, size_t size) {
  if (a->whole_steps || b->whole_steps) {
    snprintf(why, size,
             "reports with whole-step comparisons are not judged slot by "
             "slot");
    return -1;
  }
  if (a->slots != b->slots) {
    snprintf(why, size, "%d slots against %d", a->slots, b->slots);
    return 1;
  }
  for (int i = 0; i < a->slots; i++) {
    const char *slot = a->slot[i], *x = a->value[i], *y = b->value[i];
    if (strcmp(slot, b->slot[i]) != 0) {
      snprintf(why, size, "slot %d is %s in one report, %s in the other", i,
               slot, b->slot[i]);
      return 1;
    }
    if (strcmp(x, y) == 0 || near_the_line(a, slot, x, y) ||
        near_the_line(b, slot, x, y) || checked_near_the_line(a, x, y) ||
        checked_near_the_line(b, x, y) ||
        (a->budget_spent && !tried(a, slot, y)) ||
        (b->budget_spent && !tried(b, slot, x)))
      continue;
    snprintf(why, size, "%s: %s in one process, %s in the other, %s", slot, x,
             y,
             !tried(a, slot, y) || !tried(b, slot, x)
                 ? "one of them never tried the other's value (the values "
                   "tried follow the times alone)"
                 : "each decided clearly");
    return 1;
  }
  return 0;
}

/* The value r chose in slot "<call> <field>", or NULL. */
static const char *chosen(const tune_report_text *r, const char *call,
                          const char *field) {
  char slot[160];
  snprintf(slot, sizeof slot, "%s %s", call, field);
  for (int i = 0; i < r->slots; i++)
    if (strcmp(r->slot[i], slot) == 0) return r->value[i];
  return NULL;
}

/* 1 when `slot` is "<call> <field>": its call into call[size]. */
static int call_of(char *call, size_t size, const char *slot,
                   const char *field) {
  size_t n = strlen(slot), f = strlen(field);
  if (n < f + 2 || slot[n - f - 1] != ' ' || strcmp(slot + n - f, field) != 0)
    return 0;
  snprintf(call, size, "%.*s", (int)(n - f - 1), slot);
  return 1;
}

int tune_report_text_same_step(const tune_report_text *a,
                               const tune_report_text *m, int unfused) {
  const char *way = unfused ? "unfused" : "fused";
  const char *field = unfused ? "twin" : "algo";
  char call[96];
  for (int i = 0; i < a->slots; i++)
    if (call_of(call, sizeof call, a->slot[i], "way") &&
        strcmp(a->value[i], way) != 0)
      return 0;
  for (int i = 0; i < m->slots; i++) {
    if (!call_of(call, sizeof call, m->slot[i], field)) return 0;
    const char *got = chosen(a, call, "way") ? chosen(a, call, field)
                                             : chosen(a, call, "algo");
    if (!got || strcmp(got, m->value[i]) != 0) return 0;
  }
  return m->slots > 0;
}
