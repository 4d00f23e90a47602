"""Session 15: every mnist_bench row of three processes per network, rows-{old,off,new}-NET.json in the folder
given (old: a72cb34's binary, its tuner timing each call alone; off: this build with --autotune off; new: this
build tuning). Prints each row's medians (min-max over its 5 epochs) and new/off, new/old; marks a row over
1.01x off; then auto against min(fused, unfused) of the same process (+pad rows against fused+pad and
unfused+pad), for new and for off; and 784-100-10 FP32 fused."""
import json, os, sys

folder = sys.argv[1] if len(sys.argv) > 1 else '.'


def rows(path):
    out = {}
    if not os.path.exists(path):
        return out
    for r in json.load(open(path))['training']:
        k = (r['network'], r['precision'], r['activation'], r['mode'] + ('+pad' if r['pad_units'] else ''), r['graphs'])
        out[k] = r
    return out


def cell(r):
    return f"{r['ms_per_epoch']:7.2f} ({r['ms_min']:.2f}-{r['ms_max']:.2f})" if r else ' ' * 21


def auto_ratios(n):
    found = []
    for k, r in n.items():
        if k[3].startswith('auto') and k[4]:
            pad = '+pad' if k[3].endswith('+pad') else ''
            f, u = n.get(k[:3] + ('fused' + pad, True)), n.get(k[:3] + ('unfused' + pad, True))
            if f and u:
                best = min(f['ms_per_epoch'], u['ms_per_epoch'])
                found.append((r['ms_per_epoch'] / best, k, r['ms_per_epoch'], best))
    return found


over = total = 0
autos = {'new': [], 'off': []}
print(f"{'network':18} {'prec':5} {'act':5} {'mode':12} {'':5} {'a72cb34 (old)':21} {'off':21} {'new':21} new/off new/old")
for net in ['seed', 'mid', 'big']:
    o, f, n = (rows(os.path.join(folder, f'rows-{b}-{net}.json')) for b in ('old', 'off', 'new'))
    for k, r in n.items():
        off, old = f.get(k), o.get(k)
        label = k[3] if k[2] == 'relu' else k[3] + '+gelu'
        vs_off = r['ms_per_epoch'] / off['ms_per_epoch'] if off else float('nan')
        vs_old = r['ms_per_epoch'] / old['ms_per_epoch'] if old else float('nan')
        mark = ''
        if off:
            total += 1
            if vs_off > 1.01:
                over += 1
                mark = ' OVER off'
        print(f"{k[0]:18} {k[1]:5} {k[2]:5} {k[3]:12} {'graph' if k[4] else 'host ':5} {cell(old)} {cell(off)} "
              f"{cell(r)} {vs_off:6.3f} {vs_old:6.3f}{mark}")
    autos['new'] += auto_ratios(n)
    autos['off'] += auto_ratios(f)
    seed_fp32 = n.get(('784-100-10', 'fp32', 'relu', 'fused', True))
    if seed_fp32:
        print(f"784-100-10 fp32 fused: {seed_fp32['ms_per_epoch']:.2f} ms (target <= 11.3)")
print(f'rows over 1.01x off: {over} of {total}')
for b in ('new', 'off'):
    bad = [a for a in autos[b] if a[0] > 1.01]
    print(f"{b}: auto over 1.01x min(fused, unfused) in {len(bad)} of {len(autos[b])} rows" +
          ''.join(f"\n  {a[1][0]} {a[1][1]} {a[1][2]} {a[1][3]}: {a[2]:.2f} against {a[3]:.2f} ({a[0]:.3f}x)" for a in bad))
