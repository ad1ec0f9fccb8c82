from PIL import Image
import math
def photo(w,h,alpha=False):
    im = Image.new("RGBA" if alpha else "RGB",(w,h))
    px = im.load()
    for y in range(h):
        for x in range(w):
            r = int(255*x/(w-1)); g = int(255*y/(h-1)); b = int(128+100*math.sin(x/5.0+y/7.0))
            if alpha:
                a = 255 if x < w//2 else int(255*y/(h-1))
                px[x,y]=(r,g,b,a)
            else:
                px[x,y]=(r,g,b)
    return im
photo(64,48).save("heif/photo-src.png")
photo(48,40,True).save("heif/alpha-src.png")
photo(256,192).save("heif/thumb-src.png")
