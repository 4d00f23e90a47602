/* step_slots.c: the step tuner's slots over the network's calls
 * (step_slots.h). */
#include "train/step_slots.h"

#include <string.h>

#include "lt/lt_auto.h"
#include "lt/lt_split.h"

_Static_assert((int)TUNE_CACHE_ID_FIELDS == (int)LT_ALGO_FIELDS,
               "the cache keeps every attribute of an lt_algo_id");

lt_matmul_call step_slot_call(const mlp_call *calls, const tune_slot *s) {
  const lt_matmul_call *call = &calls[s->call].call;
  return s->field == TUNE_FIELD_PLAIN   ? lt_call_plain(call)
         : s->field == TUNE_FIELD_SPLIT ? lt_call_split(call)
                                        : *call;
}

/* An algorithm slot's candidates: checked (which the rule accepts, their
 * times alone), or for a choice read from the cache only the first known
 * (the heuristic's list is asked for only when a cached choice is past
 * the first: lt_plan_list says why). */
static int algo_slot(tune_slot *s, const step_tune_target *t,
                     const mlp_call *calls, int check) {
  lt_matmul_call call = step_slot_call(calls, s);
  if (check) {
    lt_candidates c;
    /* On the main lane whatever lane the step runs the call on: the check
     * waits for its lane anyway, and the side lane then sees only the
     * step's own work (tried against a slowdown of tuned runs that
     * docs/performance.md, "Judged by the step", describes). */
    if (lt_matmul_candidates(t->ctx, GPU_LANE_MAIN, &call, &c) != 0) return -1;
    s->count = c.count < TUNE_MAX_VALUES ? c.count : TUNE_MAX_VALUES;
    memcpy(s->ok, c.ok, (size_t)s->count);
    memcpy(s->alone_us, c.alone_us, (size_t)s->count * sizeof(float));
    return 0;
  }
  s->count = 1;
  s->ok[0] = 1;
  return 0;
}

/* A call's way slot: fused and unfused always; split where cuBLASLt plans
 * the split GEMM. */
static void way_slot(tune_slot *s, const step_tune_target *t,
                     const mlp_call *calls) {
  const lt_matmul_call *call = &calls[s->call].call;
  s->count = LT_AUTO_SPLIT + 1;
  s->ok[LT_AUTO_FUSED] = s->ok[LT_AUTO_UNFUSED] = 1;
  lt_matmul_call split = lt_call_split(call);
  s->ok[LT_AUTO_SPLIT] = lt_epilogue_has_split(call->shape.epilogue) &&
                         lt_matmul_plannable(t->ctx, &split) == 0;
}

int step_slots_build(tune_slot *slots, const step_tune_target *t,
                     const mlp_call *calls, int call_count, int check) {
  int count = 0;
  for (int i = 0; i < call_count; i++) {
    /* A call writing an FP8 D runs fused in every mode (linear.c): like a
     * DEFAULT call it has no twin and no way to choose. */
    int fused_call = calls[i].call.shape.epilogue != LT_EPILOGUE_DEFAULT &&
                     calls[i].call.shape.d_fp8 == LT_FP8_NONE;
    /* Under auto, a DEFAULT call runs its own plan (lt_matmul_auto_on);
     * under unfused, every call runs its twin's GEMM. */
    int algo = t->mode != MLP_MODE_UNFUSED;
    int plain =
        t->mode == MLP_MODE_UNFUSED || (t->mode == MLP_MODE_AUTO && fused_call);
    int way = t->mode == MLP_MODE_AUTO && fused_call;
    tune_field fields[3] = {TUNE_FIELD_ALGO, TUNE_FIELD_PLAIN, TUNE_FIELD_WAY};
    int wanted[3] = {algo, plain, way};
    for (int f = 0; f < 3; f++) {
      if (!wanted[f]) continue;
      if (count >= TUNE_MAX_SLOTS) return count;
      tune_slot *s = &slots[count++];
      memset(s, 0, sizeof *s);
      s->call = i;
      s->field = fields[f];
      if (s->field == TUNE_FIELD_WAY)
        way_slot(s, t, calls);
      else if (algo_slot(s, t, calls, check) != 0)
        return -1;
    }
  }
  return count;
}

void step_slots_first(tune_config *c, const tune_slot *slots, int count,
                      int way) {
  memset(c, 0, sizeof *c);
  for (int i = 0; i < count; i++)
    if (slots[i].field == TUNE_FIELD_WAY) c->value[i] = (unsigned char)way;
}

void step_slots_apply(mlp *net, const mlp_call *calls, const tune_slot *slots,
                      int count, const tune_config *c, int n) {
  for (int l = 0; l < net->layout.depth; l++) {
    memset(net->layers[l].picks, 0, sizeof net->layers[l].picks);
    net->layers[l].picks_n = n;
  }
  for (int i = 0; i < count; i++) {
    const mlp_call *call = &calls[slots[i].call];
    lt_pick *pick = &net->layers[call->layer].picks[call->kind];
    int v = c->value[i];
    /* A pick names candidate v as v + 1; candidate 0 is the plan's own. */
    unsigned char as_pick = (unsigned char)(v == 0 ? 0 : v + 1);
    switch (slots[i].field) {
    case TUNE_FIELD_ALGO: pick->algo = as_pick; break;
    case TUNE_FIELD_PLAIN: pick->plain = as_pick; break;
    case TUNE_FIELD_SPLIT: pick->split = as_pick; break;
    default: pick->way = (unsigned char)v; break;
    }
  }
}

int step_slots_entry(tune_cache_entry *out, gpu_context *ctx,
                     const mlp_call *calls, const tune_slot *slots, int count,
                     const tune_config *c, const char *key) {
  unsigned long long h = TUNE_FNV_OFFSET;
  memset(out, 0, sizeof *out);
  snprintf(out->key, sizeof out->key, "%s", key);
  out->count = count;
  for (int i = 0; i < count; i++) {
    tune_cache_slot *e = &out->slot[i];
    e->call = slots[i].call;
    e->field = (int)slots[i].field;
    e->value = c->value[i];
    e->has_algo = slots[i].field != TUNE_FIELD_WAY;
    if (e->has_algo) {
      cublasLtMatmulAlgo_t algo;
      lt_algo_id id;
      lt_matmul_call call = step_slot_call(calls, &slots[i]);
      if (lt_matmul_candidate_algo(ctx, &call, e->value, &algo, &id) != 0)
        return -1;
      memcpy(e->algo, &algo, sizeof e->algo);
      memcpy(e->id, id.field, sizeof e->id);
      /* The index and the attributes, not the bytes: the same in every
       * process. */
      h = tune_fnv1a(h, e->id, sizeof e->id);
      h = tune_fnv1a(h, &e->value, sizeof e->value);
    }
    int head[3] = {e->call, e->field, e->has_algo ? 0 : e->value};
    h = tune_fnv1a(h, head, sizeof head);
  }
  out->fingerprint = (unsigned)(h ^ (h >> 32));
  return 0;
}

int step_slots_from_entry(tune_config *c, gpu_context *ctx,
                          const mlp_call *calls, const tune_slot *slots,
                          int count, const tune_cache_entry *entry, int adopt,
                          char *why, size_t why_size) {
  memset(c, 0, sizeof *c);
  if (entry->count != count) {
    snprintf(why, why_size, "it has %d choices, this step %d", entry->count,
             count);
    return -1;
  }
  for (int i = 0; i < count; i++) {
    const tune_cache_slot *e = &entry->slot[i];
    if (e->call != slots[i].call || e->field != (int)slots[i].field) {
      snprintf(why, why_size, "choice %d is for another call", i);
      return -1;
    }
    if (!e->has_algo) {
      if (e->value >= slots[i].count || !slots[i].ok[e->value]) {
        snprintf(why, why_size, "choice %d names a way this call lacks", i);
        return -1;
      }
      c->value[i] = (unsigned char)e->value;
      continue;
    }
    cublasLtMatmulAlgo_t algo;
    lt_algo_id id;
    memcpy(&algo, e->algo, sizeof algo);
    memcpy(id.field, e->id, sizeof id.field);
    lt_matmul_call call = step_slot_call(calls, &slots[i]);
    int found =
        adopt ? lt_matmul_candidate_adopt(ctx, &call, e->value, &algo, &id)
              : lt_matmul_candidate_find(ctx, &call, e->value, &algo, &id);
    if (adopt && (found < 0 || found >= TUNE_MAX_VALUES)) {
      /* No "now" to show: the heuristic was not asked (that is the
       * point); the wrapper says why it refused. */
      const char *reason = lt_last_error(ctx);
      snprintf(why, why_size, "choice %d (candidate %d) not taken: %s", i,
               e->value,
               reason[0] ? reason : "this context numbers it otherwise");
      return -1;
    }
    if (found < 0 || found >= TUNE_MAX_VALUES) {
      cublasLtMatmulAlgo_t now;
      lt_algo_id now_id = {{0}};
      lt_matmul_candidate_algo(ctx, &call, e->value, &now, &now_id);
      char kept_name[96], now_name[96];
      lt_algo_id_name(kept_name, sizeof kept_name, &id);
      lt_algo_id_name(now_name, sizeof now_name, &now_id);
      snprintf(why, why_size,
               "choice %d names an algorithm the heuristic does not offer "
               "now (candidate %d: kept %s, now %s)",
               i, e->value, kept_name, now_name);
      return -1;
    }
    c->value[i] = (unsigned char)found;
  }
  return 0;
}
