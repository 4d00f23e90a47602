#!/usr/bin/env python3
"""Session 25: the rows of mnist_bench --against-off JSON files (each row against its --autotune off twin in the same
process), one line per row and file: the ratio's median (min-max) over the rounds, whether the two steps launched the
same kernels, and a summary of the rows over 1.01x split by that. Usage: in_process.py FILE.json..."""
import json
import sys


def label(r):
    return "%s %s %s%s%s%s" % (r["network"], r["precision"], r["mode"], "+pad" if r["pad_units"] else "",
                              "+gelu" if r["activation"] == "gelu" else "", "" if r["graphs"] else " host")


def main(paths):
    over = {True: [], False: [], None: []}
    rows = 0
    for path in paths:
        for r in json.load(open(path))["training"]:
            rows += 1
            same = r.get("same_launches_as_off")
            print("%-48s %-34s %.3f (%.3f-%.3f) off %8.2f ms  %s" % (
                label(r), path.split("/")[-1], r["vs_off"], r["vs_off_min"], r["vs_off_max"],
                r.get("off_ms_per_epoch", float("nan")), {True: "same launches", False: "other launches", None: "launches unknown"}[same]))
            if r["vs_off"] > 1.01:
                over[same].append("%s (%s) %.3f" % (label(r), path.split("/")[-1], r["vs_off"]))
    print("\nrows: %d; over 1.01x off with other launches: %d%s" % (
        rows, len(over[False]), "".join("\n  " + x for x in over[False])))
    print("over 1.01x off with the same launches (the tuner changed nothing): %d%s" % (
        len(over[True]), "".join("\n  " + x for x in over[True])))
    print("over 1.01x off, launches not recorded (files before the key): %d%s" % (
        len(over[None]), "".join("\n  " + x for x in over[None])))


if __name__ == "__main__":
    main(sys.argv[1:])
