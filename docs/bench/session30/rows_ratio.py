"""rows_ratio.py OLD... -- NEW...: mnist_bench outputs of two builds (each file one run of the
same rows) compared row by row: each row's median epoch (ms) in every run, the mean over each
build's runs, and new over old; rows over 1.01x flagged."""
import re
import sys

split = sys.argv.index("--")
builds = {"old": sys.argv[1:split], "new": sys.argv[split + 1:]}
rows = {}
for build, files in builds.items():
    for path in files:
        for line in open(path):
            m = re.match(r"(\d+(?:-\d+)+)\s+(\d+)\s+(\S+)\s+(\S+)\s+\S+\s+([\d.]+) \(", line)
            if m:
                key = " ".join(m.group(1, 2, 3, 4))
                rows.setdefault(key, {"old": [], "new": []})[build].append(float(m.group(5)))
over = 0
for key, runs in rows.items():
    if not runs["old"] or not runs["new"]:
        continue
    old = sum(runs["old"]) / len(runs["old"])
    new = sum(runs["new"]) / len(runs["new"])
    flag = "  OVER 1.01x" if new / old > 1.01 else ""
    over += bool(flag)
    print(f"{key:45s} old {runs['old']} new {runs['new']}  new/old {new / old:.3f}{flag}")
print(f"{over} of {len(rows)} rows over 1.01x")
