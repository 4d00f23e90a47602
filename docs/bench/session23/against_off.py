#!/usr/bin/env python3
"""against_off.py DIR...: session 23's rows under --autotune exact against --autotune off (rows_lib.sh's
NET-TUNE-rROUND.json in each DIR). Per row: each mode's median over the rounds of its median ms per epoch, the
ratio exact / off as the median of the rounds' ratios with their range, and whether exact ran off's kernels in every
round ("same": no algorithm moved from cuBLASLt's first candidate and, under auto, the ways off's auto chose too,
i.e. the same tuned_set; else the rounds whose step differed). Then the rows over 1.01 and the auto rows over 1.01x
min(fused, unfused) of their own process."""
import glob, json, os, re, statistics, sys
from collections import defaultdict

runs = defaultdict(dict)  # (net, tune, round) -> {rowkey: row}
for d in sys.argv[1:]:
    for path in glob.glob(os.path.join(d, "*-r*.json")):
        m = re.match(r"(\w+)-(exact|off)-r(\d+)\.json$", os.path.basename(path))
        if not m:
            continue
        rows = json.load(open(path))["training"]
        for row in rows:
            key = (row["network"], row["precision"], row["activation"], row["mode"] + ("+pad" if row["pad_units"] else ""),
                   "graphs" if row["graphs"] else "host")
            runs[(m.group(1), m.group(2), int(m.group(3)))][key] = row

def same_step(e, o):
    if e.get("algorithms_moved", -1) != 0:
        return False
    return e["mode"] != "auto" or e.get("tuned_set") == o.get("tuned_set")

table = defaultdict(lambda: {"exact": [], "off": [], "ratio": [], "differ": []})
auto_over = []
for (net, tune, r), rows in sorted(runs.items()):
    if tune != "exact" or (net, "off", r) not in runs:
        continue
    off = runs[(net, "off", r)]
    for key, e in rows.items():
        if key not in off:
            continue
        o = off[key]
        t = table[key]
        t["exact"].append(e["ms_per_epoch"]); t["off"].append(o["ms_per_epoch"])
        t["ratio"].append(e["ms_per_epoch"] / o["ms_per_epoch"])
        if not same_step(e, o):
            t["differ"].append("r%d %s/%s moved %s" % (r, e.get("tuned_set", "-"), o.get("tuned_set", "-"),
                                                      e.get("algorithms_moved", "?")))
    for tune_rows, label in ((rows, "exact"), (off, "off")):
        for key, a in tune_rows.items():
            if not key[3].startswith("auto"):
                continue
            pad = "+pad" if key[3].endswith("+pad") else ""
            twins = [tune_rows.get(key[:3] + (m + pad, key[4])) for m in ("fused", "unfused")]
            best = min(x["ms_per_epoch"] for x in twins if x)
            if a["ms_per_epoch"] > 1.01 * best:
                auto_over.append("%s r%d %s: %.2f against %.2f (%.3f)" % (label, r, " ".join(key), a["ms_per_epoch"],
                                                                        best, a["ms_per_epoch"] / best))
over = []
print("| row | off | exact | exact / off (range) | rounds | exact's step |")
print("| --- | --- | --- | --- | --- | --- |")
for key, t in table.items():
    med = statistics.median(t["ratio"])
    step = "same as off" if not t["differ"] else "; ".join(t["differ"])
    print("| %s | %.2f | %.2f | %.3f (%.3f-%.3f) | %d | %s |" % (" ".join(key), statistics.median(t["off"]),
          statistics.median(t["exact"]), med, min(t["ratio"]), max(t["ratio"]), len(t["ratio"]), step))
    if med > 1.01:
        over.append("%s %.3f (%s)" % (" ".join(key), med, "same step" if not t["differ"] else "its own step"))
print("\nrows: %d; exact over 1.01x off (median of the rounds' ratios): %d" % (len(table), len(over)))
for line in over:
    print("  " + line)
print("auto over 1.01x min(fused, unfused) of its own process: %d" % len(auto_over))
for line in auto_over:
    print("  " + line)
