# Reference decodes by Pillow (not libtiff's RGBA path): straight RGBA8, orientation applied, page 0
# (multipage: every page, X.pageN.rgba). 16-bit samples become (v + 128) // 257.
from PIL import Image, ImageOps
import glob
def rgba(im):
    if im.mode == 'I;16':
        data = [ (v + 128) // 257 for v in im.getdata() ]
        g = Image.new('L', im.size); g.putdata(data); return g.convert('RGBA')
    return im.convert('RGBA')
for f in sorted(glob.glob('*.tif')):
    im = Image.open(f)
    for page in range(getattr(im, 'n_frames', 1)):
        im.seek(page)
        out = ImageOps.exif_transpose(rgba(im)) if im.tag_v2.get(274, 1) != 1 else rgba(im)
        name = f[:-4] + ('' if page == 0 else '.page%d' % page) + '.rgba'
        open(name, 'wb').write(out.tobytes())
        print(name, out.size)
