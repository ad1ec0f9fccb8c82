# Writes pq-src.png: 64×32, 16-bit RGB, PQ signals (BT.2020 primaries, cICP 9/16/0 full range) in smooth
# gradients whose brightest reaches about 4 000 cd/m². The tests compute the same signals (HDRReference.signal)
# and hold the decoders' tone-mapped output to a reference written from the standards.
import struct, zlib
W, H = 64, 32
def signal(x, y):
    return (0.15 + 0.75 * x / (W - 1), 0.10 + 0.70 * y / (H - 1), 0.35 + 0.30 * (x + y) / (W + H - 2))
raw = b''
for y in range(H):
    raw += b'\x00' + b''.join(struct.pack('>H', round(v * 65535)) for x in range(W) for v in signal(x, y))
def chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
open('pq-src.png', 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', W, H, 16, 2, 0, 0, 0))
                                + chunk(b'cICP', bytes([9, 16, 0, 1])) + chunk(b'IDAT', zlib.compress(raw, 9))
                                + chunk(b'IEND', b''))
