"""Session 11: every mnist_bench row of a tuned process (new-NET.json) against --autotune off (off-NET.json),
for the networks whose files are in the folder given (default: .); a row over 1.01x off is marked, with
whether its tuner chose the untuned set (then the difference is the process's, not the choice's: the tuned
text's --show-plans report says so per row). Also auto against min(fused, unfused) of the same process."""
import json, os, re, sys

folder = sys.argv[1] if len(sys.argv) > 1 else '.'

def rows(path):
    out = {}
    for r in json.load(open(path))['training']:
        k = (r['network'], r['precision'], r['activation'], r['mode'] + ('+pad' if r['pad_units'] else ''), r['graphs'])
        out[k] = r
    return out

def untuned_rows(text_path):
    """(label, precision, graphs) of the rows that run the untuned set: their report keeps the untuned set
    after the check in a fresh context, or shows no win, or its only wins are whole steps ending at the
    ways alone (under auto: what an untuned run runs)."""
    text = open(text_path).read()
    found = set()
    for m in re.finditer(r'\n(784-\S+) (\S+) (\S+)( graphs off)?:\n(.*?)(?=\n784-|\Z)', text, re.S):
        body = m.group(5)
        wins = [l for l in body.splitlines() if l.rstrip().endswith(': wins') or ': wins;' in l]
        whole = [l for l in wins if 'the whole step' in l]
        if ('untuned set kept' in body or not wins or
                (len(whole) == len(wins) and '-> ways alone' in whole[-1])):
            found.add((m.group(2), m.group(3), m.group(4) is None))
    return found

over = total = 0
lines, autos = [], []
for net in ['seed', 'mid', 'big']:
    new_path = os.path.join(folder, f'new-{net}.json')
    if not os.path.exists(new_path):
        continue
    n, o = rows(new_path), rows(os.path.join(folder, f'off-{net}.json'))
    plain = untuned_rows(os.path.join(folder, f'new-{net}.txt'))
    for k, r in n.items():
        if k not in o:
            continue
        total += 1
        ratio = r['ms_per_epoch'] / o[k]['ms_per_epoch']
        label = k[3] if k[2] == 'relu' else k[3] + '+gelu'
        note = ''
        if ratio > 1.01:
            over += 1
            note = ' OVER' + (' (untuned set: the process)' if (label, k[1], k[4]) in plain else ' (a tuned set)')
        lines.append(f"{k[0]:18} {k[1]:5} {k[2]:5} {k[3]:12} {'graph' if k[4] else 'host '} new {r['ms_per_epoch']:8.2f} "
                     f"({r['ms_min']:.2f}-{r['ms_max']:.2f}) off {o[k]['ms_per_epoch']:8.2f} "
                     f"({o[k]['ms_min']:.2f}-{o[k]['ms_max']:.2f}) {ratio:6.3f}x{note}")
    for k, r in n.items():
        if k[3].startswith('auto') and k[4]:
            pad = '+pad' if k[3].endswith('+pad') else ''
            f, u = n.get(k[:3] + ('fused' + pad, True)), n.get(k[:3] + ('unfused' + pad, True))
            if f and u:
                best = min(f['ms_per_epoch'], u['ms_per_epoch'])
                autos.append((r['ms_per_epoch'] / best, k, r['ms_per_epoch'], best))
print('\n'.join(lines))
print(f'rows over 1.01x off: {over} of {total}')
print(f'auto over 1.01x min(fused, unfused): {sum(a[0] > 1.01 for a in autos)} of {len(autos)}')
for a in sorted(autos, reverse=True):
    if a[0] > 1.01:
        print(f'  {a[1][0]} {a[1][1]} {a[1][2]} {a[1][3]}: {a[2]:.2f} / {a[3]:.2f} = {a[0]:.3f}')
