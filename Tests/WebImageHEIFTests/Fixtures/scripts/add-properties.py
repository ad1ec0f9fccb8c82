# Appends item properties to the primary item of a HEIF or AVIF file written by heif-enc or avifenc (neither
# writes a rotation, a content light level or a mastering display box, and heif-enc writes no nclx), fixing the
# enclosing box sizes and the iloc file offsets. Each property is one argument:
#   irot:ANGLE        an essential rotation by ANGLE × 90° counter-clockwise
#   nclx:P,T,M,FULL   a 'colr' box of type nclx (H.273 primaries, transfer, matrix, full range flag)
#   clli:MAXCLL,MAXFALL   content light level in cd/m²
#   mdcv:MAXNITS      mastering display with BT.2020 primaries, D65 white, MAXNITS peak and 0.005 cd/m² black
# e.g. python3 add-properties.py pq.heic pq-mdcv.heic nclx:9,16,9,1 mdcv:1500
import struct, sys
src, dst, specs = sys.argv[1], sys.argv[2], sys.argv[3:]
d = bytearray(open(src, 'rb').read())

def box(kind, payload):
    return struct.pack('>I4s', 8 + len(payload), kind) + payload

def prop(spec):
    kind, values = spec.split(':')
    numbers = [int(v) for v in values.split(',')]
    if kind == 'irot':
        return box(b'irot', bytes([numbers[0]]))
    if kind == 'nclx':
        p, t, m, full = numbers
        return box(b'colr', b'nclx' + struct.pack('>HHHB', p, t, m, 0x80 if full else 0))
    if kind == 'clli':
        return box(b'clli', struct.pack('>HH', *numbers))
    if kind == 'mdcv':
        # BT.2020 primaries (G, B, R as ST 2086 orders them) and D65, in 0.00002 units; luminance in 0.0001 cd/m².
        chroma = [8500, 39850, 6550, 2300, 35400, 14600, 15635, 16450]
        return box(b'mdcv', struct.pack('>8HII', *chroma, numbers[0] * 10000, 50))
    raise SystemExit('unknown property ' + spec)

def boxes(off, end):
    out = []
    while off + 8 <= end:
        size, typ = struct.unpack('>I4s', d[off:off + 8]); out.append((typ, off, size)); off += size
    return out

def bump(off, by):
    struct.pack_into('>I', d, off, struct.unpack('>I', d[off:off + 4])[0] + by)

added = b''.join(prop(s) for s in specs)
top = boxes(0, len(d)); meta = [b for b in top if b[0] == b'meta'][0]
mb = boxes(meta[1] + 12, meta[1] + meta[2])
iprp = [b for b in mb if b[0] == b'iprp'][0]; pitm = [b for b in mb if b[0] == b'pitm'][0]
iloc = [b for b in mb if b[0] == b'iloc'][0]
primary = struct.unpack('>H', d[pitm[1] + 12:pitm[1] + 14])[0]
ib = boxes(iprp[1] + 8, iprp[1] + iprp[2]); ipco = [b for b in ib if b[0] == b'ipco'][0]
ipma = [b for b in ib if b[0] == b'ipma'][0]
first = len(boxes(ipco[1] + 8, ipco[1] + ipco[2])) + 1
# A rotation is essential (the top bit): a reader that cannot apply it must not show the image.
indices = bytes(index | (0x80 if spec.startswith('irot:') else 0)
                for index, spec in zip(range(first, first + len(specs)), specs))
ver = d[ipma[1] + 8]; flags = int.from_bytes(d[ipma[1] + 9:ipma[1] + 12], 'big'); assert ver == 0 and flags & 1 == 0
p = ipma[1] + 12; n = struct.unpack('>I', d[p:p + 4])[0]; p += 4
for i in range(n):
    item = struct.unpack('>H', d[p:p + 2])[0]; cnt = d[p + 2]
    if item == primary:
        d[p + 2] = cnt + len(indices); ins = p + 3 + cnt; d[ins:ins] = indices; break
    p += 3 + cnt
else:
    raise SystemExit('primary not in ipma')
# The new properties go at the end of ipco, before ipma, so the ipma edit above stays where it was made.
at = ipco[1] + ipco[2]; d[at:at] = added
grow = len(added) + len(indices)
bump(ipco[1], len(added)); bump(ipma[1] + len(added), len(indices)); bump(iprp[1], grow); bump(meta[1], grow)
# iloc: shift the file offsets (construction method 0) of data after meta.
p = iloc[1] + 8; ver = d[p]; p += 4
os_, ls = d[p] >> 4, d[p] & 15; bs, xs = d[p + 1] >> 4, d[p + 1] & 15; p += 2
if ver < 2: n = struct.unpack('>H', d[p:p + 2])[0]; p += 2
else: n = struct.unpack('>I', d[p:p + 4])[0]; p += 4
def rd(sz):
    global p
    v = int.from_bytes(d[p:p + sz], 'big') if sz else 0; p += sz; return v
for i in range(n):
    rd(2 if ver < 2 else 4)
    cm = 0
    if ver in (1, 2): cm = rd(2) & 15
    rd(2); bpos = p; base = rd(bs)
    ec = rd(2)
    for e in range(ec):
        if ver in (1, 2) and xs: rd(xs)
        opos = p; off = rd(os_); rd(ls)
        if cm == 0 and bs == 0 and off > meta[1]:
            d[opos:opos + os_] = (off + grow).to_bytes(os_, 'big')
    if cm == 0 and bs and base > meta[1]:
        d[bpos:bpos + bs] = (base + grow).to_bytes(bs, 'big')
open(dst, 'wb').write(d)
