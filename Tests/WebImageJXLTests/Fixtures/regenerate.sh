#!/bin/sh
# Regenerates every fixture here: sources with Pillow, JPEG XL files with cjxl 0.7, references with djxl + Pillow.
set -e
cd "$(dirname "$0")"
tmp=$(mktemp -d)
(cd "$tmp" && /usr/bin/python3 "$OLDPWD/sources.py")
cjxl "$tmp/still.png" still-lossless.jxl -d 0
cjxl "$tmp/alpha.png" alpha-lossless-container.jxl -d 0 --container=1
cjxl "$tmp/photo.png" photo-lossy.jxl -d 1.5
cjxl "$tmp/anim.png" anim.jxl -d 0
cjxl "$tmp/gray.png" gray-lossless.jxl -d 0
cjxl "$tmp/oriented.jpg" oriented.jxl
/usr/bin/python3 -c "
from PIL import Image, ImageSequence
im = Image.open('$tmp/anim.png'); frames = [f.convert('RGBA').copy() for f in ImageSequence.Iterator(im)]
frames[0].save('$tmp/anim.gif', save_all=True, append_images=frames[1:], duration=[100, 200, 300], loop=2,
               disposal=2, transparency=0)"
cjxl "$tmp/anim.gif" anim-gif.jxl
for name in still-lossless alpha-lossless-container photo-lossy gray-lossless oriented; do
    djxl $name.jxl "$tmp/$name.png"
    /usr/bin/python3 refs.py "$tmp/$name.png" $name.rgba
done
djxl anim.jxl "$tmp/anim-out.apng"
/usr/bin/python3 refs.py "$tmp/anim-out.apng" anim.rgba
# The lossless files must give back their sources exactly.
for name in still alpha gray anim; do /usr/bin/python3 refs.py "$tmp/$name.png" "$tmp/$name.rgba"; done
cmp "$tmp/still.rgba" still-lossless.rgba && cmp "$tmp/alpha.rgba" alpha-lossless-container.rgba
cmp "$tmp/gray.rgba" gray-lossless.rgba && cmp "$tmp/anim.rgba" anim.rgba
rm -r "$tmp"
