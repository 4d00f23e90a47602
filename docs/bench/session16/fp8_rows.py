"""Session 16: every fp8 mnist_bench row of a72cb34's binary (fp8-old-NET.json) and of this build
(fp8-new-NET.json), one process each per network, in the folder given: each row's median (min-max over its
epochs), new/old, marked when over 1.01x (issue 28: every fp8 row <= 1.01x its a72cb34 median); then auto
against min(fused, unfused) of the same process."""
import json, os, sys

folder = sys.argv[1] if len(sys.argv) > 1 else '.'


def rows(path):
    out = {}
    for r in json.load(open(path))['training']:
        out[(r['network'], r['activation'], r['mode'] + ('+pad' if r['pad_units'] else ''))] = r
    return out


def cell(r):
    return f"{r['ms_per_epoch']:7.2f} ({r['ms_min']:.2f}-{r['ms_max']:.2f})"


over = total = 0
print(f"{'network':18} {'act':5} {'mode':9} {'a72cb34':21} {'new':21} new/old")
for net in ['seed', 'mid', 'big']:
    o = rows(os.path.join(folder, f'fp8-old-{net}.json'))
    n = rows(os.path.join(folder, f'fp8-new-{net}.json'))
    for k, r in n.items():
        if k not in o:
            continue
        ratio = r['ms_per_epoch'] / o[k]['ms_per_epoch']
        total += 1
        over += ratio > 1.01
        print(f"{k[0]:18} {k[1]:5} {k[2]:9} {cell(o[k])} {cell(r)} {ratio:6.3f}{'  OVER' if ratio > 1.01 else ''}")
    for k, r in n.items():
        if k[2] == 'auto':
            f, u = n.get(k[:2] + ('fused',)), n.get(k[:2] + ('unfused',))
            if f and u:
                best = min(f['ms_per_epoch'], u['ms_per_epoch'])
                print(f"  auto {k[0]} {k[1]}: {r['ms_per_epoch']:.2f} against {best:.2f} ({r['ms_per_epoch'] / best:.3f}x)")
print(f"{over} of {total} fp8 rows over 1.01x a72cb34")
