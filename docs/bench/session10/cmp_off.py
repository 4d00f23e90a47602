import json, sys
def rows(path):
    d = json.load(open(path)); out = {}
    for r in d['training']:
        k = (r['network'], r['precision'], r['activation'], r['mode'] + ('+pad' if r['pad_units'] else ''), r['graphs'])
        out[k] = r
    return out
over = 0; total = 0; lines = []
autos = []
for net in ['seed', 'mid', 'big']:
    n = rows(f'c/new-{net}.json'); o = rows(f'c/off-{net}.json')
    for k, r in n.items():
        if k not in o: continue
        total += 1
        ratio = r['ms_per_epoch'] / o[k]['ms_per_epoch']
        flag = ' OVER' if ratio > 1.01 else ''
        over += ratio > 1.01
        lines.append(f"{k[0]:18} {k[1]:5} {k[2]:5} {k[3]:12} {'graph' if k[4] else 'host '} new {r['ms_per_epoch']:8.2f} ({r['ms_min']:.2f}-{r['ms_max']:.2f}) off {o[k]['ms_per_epoch']:8.2f} ({o[k]['ms_min']:.2f}-{o[k]['ms_max']:.2f}) {ratio:6.3f}x{flag}")
    for k, r in n.items():
        if k[3].startswith('auto') and k[4]:
            pad = '+pad' if k[3].endswith('+pad') else ''
            f = n.get((k[0], k[1], k[2], 'fused' + pad, True)); u = n.get((k[0], k[1], k[2], 'unfused' + pad, True))
            if f and u:
                m = min(f['ms_per_epoch'], u['ms_per_epoch'])
                autos.append((r['ms_per_epoch'] / m, k, r['ms_per_epoch'], m))
print('\n'.join(lines))
print(f'rows over 1.01x off: {over} of {total}')
print('auto / min(fused, unfused) over 1.01:')
for a in sorted(autos, reverse=True):
    if a[0] > 1.01: print(f'  {a[1][0]} {a[1][1]} {a[1][2]} {a[1][3]}: {a[2]:.2f} / {a[3]:.2f} = {a[0]:.3f}')
print(f'auto groups: {len(autos)}, over 1.01: {sum(a[0] > 1.01 for a in autos)}')
