# Inserts an essential 'irot' (and optionally 'imir') property on the primary item of a HEIF file written by
# heif-enc (which cannot write one), fixing the enclosing box sizes and the iloc file offsets.
import struct,sys
src,dst,angle=sys.argv[1],sys.argv[2],int(sys.argv[3])
d=bytearray(open(src,'rb').read())
def boxes(off,end):
    out=[]
    while off+8<=end:
        size,typ=struct.unpack('>I4s',d[off:off+8]); out.append((typ,off,size)); off+=size
    return out
top=boxes(0,len(d)); meta=[b for b in top if b[0]==b'meta'][0]
mb=boxes(meta[1]+12,meta[1]+meta[2])
iprp=[b for b in mb if b[0]==b'iprp'][0]; pitm=[b for b in mb if b[0]==b'pitm'][0]; iloc=[b for b in mb if b[0]==b'iloc'][0]
primary=struct.unpack('>H',d[pitm[1]+12:pitm[1]+14])[0]
ib=boxes(iprp[1]+8,iprp[1]+iprp[2]); ipco=[b for b in ib if b[0]==b'ipco'][0]; ipma=[b for b in ib if b[0]==b'ipma'][0]
nprops=len(boxes(ipco[1]+8,ipco[1]+ipco[2]))
newindex=nprops+1
irot=struct.pack('>I4sB',9,b'irot',angle)
# ipma edit
ver=d[ipma[1]+8]; flags=int.from_bytes(d[ipma[1]+9:ipma[1]+12],'big'); assert ver==0 and flags&1==0
p=ipma[1]+12; n=struct.unpack('>I',d[p:p+4])[0]; p+=4
for i in range(n):
    item=struct.unpack('>H',d[p:p+2])[0]; cnt=d[p+2]
    if item==primary:
        d[p+2]=cnt+1; ins=p+3+cnt; d[ins:ins]=bytes([0x80|newindex]); break
    p+=3+cnt
else: raise SystemExit('primary not in ipma')
# insert irot at end of ipco (before ipma, so positions before ins are unaffected)
at=ipco[1]+ipco[2]; d[at:at]=irot
grow=len(irot)+1
def bump(off,by): struct.pack_into('>I',d,off,struct.unpack('>I',d[off:off+4])[0]+by)
bump(ipco[1],len(irot)); bump(ipma[1]+len(irot),1); bump(iprp[1],grow); bump(meta[1],grow)
# iloc: shift construction_method 0 extents that live after meta
p=iloc[1]+8; ver=d[p]; p+=4
os_,ls=d[p]>>4,d[p]&15; bs,xs=d[p+1]>>4,d[p+1]&15; p+=2
if ver<2: n=struct.unpack('>H',d[p:p+2])[0]; p+=2
else: n=struct.unpack('>I',d[p:p+4])[0]; p+=4
def rd(sz):
    global p
    v=int.from_bytes(d[p:p+sz],'big') if sz else 0; p+=sz; return v
for i in range(n):
    rd(2 if ver<2 else 4)
    cm=0
    if ver in (1,2): cm=rd(2)&15
    rd(2); bpos=p; base=rd(bs)
    ec=rd(2)
    for e in range(ec):
        if ver in (1,2) and xs: rd(xs)
        opos=p; off=rd(os_); rd(ls)
        if cm==0 and bs==0 and off>meta[1]:
            d[opos:opos+os_]=(off+grow).to_bytes(os_,'big')
    if cm==0 and bs and base>meta[1]:
        d[bpos:bpos+bs]=(base+grow).to_bytes(bs,'big')
open(dst,'wb').write(d)
