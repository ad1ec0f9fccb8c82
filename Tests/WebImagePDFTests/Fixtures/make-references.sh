#!/bin/sh
# Writes the PDFs (make_fixtures.py), then renders reference pages with pdftoppm (poppler's Splash renderer, not
# the cairo path under test) at 72 dpi and stores them as raw RGB (Pillow converts the PNG), 3 bytes a pixel.
set -e
cd "$(dirname "$0")"
/usr/bin/python3 make_fixtures.py
render() {  # render OUTPUT PDF PAGE [pdftoppm options...]
    out=$1; pdf=$2; page=$3; shift 3
    pdftoppm -r 72 -f "$page" -l "$page" -singlefile -png "$@" "$pdf" /tmp/pdf-reference
    /usr/bin/python3 -c "from PIL import Image; open('$out', 'wb').write(Image.open('/tmp/pdf-reference.png').convert('RGB').tobytes())"
}
render shapes.rgb shapes.pdf 1
render two-pages-2.rgb two-pages.pdf 2
render rotated.rgb rotated.pdf 1
render fractional.rgb fractional.pdf 1
render shapes-50x40.rgb shapes.pdf 1 -scale-to-x 50 -scale-to-y 40   # a thumbnail drawn at its size
rm -f /tmp/pdf-reference.png
