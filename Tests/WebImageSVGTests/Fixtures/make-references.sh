#!/bin/sh
# Renders every reference with rsvg-convert and stores it as raw straight RGBA (Pillow converts the PNG).
set -e
cd "$(dirname "$0")"
render() {  # render OUTPUT SVG [rsvg-convert options...]
    out=$1; svg=$2; shift 2
    rsvg-convert "$@" "$svg" -o /tmp/svg-reference.png
    /usr/bin/python3 -c "from PIL import Image; open('$out', 'wb').write(Image.open('/tmp/svg-reference.png').convert('RGBA').tobytes())"
}
for name in shapes gradient viewbox units one-side fractional external; do render "$name.rgba" "$name.svg"; done
render shapes-32x24.rgba shapes.svg -w 32 -h 24     # a thumbnail drawn at its size
render gradient-40x30.rgba gradient.svg -w 40 -h 30
rm -f /tmp/svg-reference.png
