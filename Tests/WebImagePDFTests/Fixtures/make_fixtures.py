#!/usr/bin/python3
"""Writes the PDF fixtures byte by byte (no PDF library), so every object is known.

Each page draws filled shapes with known colours; no text, so fonts do not matter.
encrypted.pdf uses the standard security handler, revision 2 (RC4, 40-bit key), user password "secret":
`pdftoppm -upw secret encrypted.pdf` draws it, without the password nothing can.
"""
import hashlib

PAD = bytes.fromhex("28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A")


def rc4(key, data):
    s = list(range(256))
    j = 0
    for i in range(256):
        j = (j + s[i] + key[i % len(key)]) % 256
        s[i], s[j] = s[j], s[i]
    out, i, j = bytearray(), 0, 0
    for byte in data:
        i = (i + 1) % 256
        j = (j + s[i]) % 256
        s[i], s[j] = s[j], s[i]
        out.append(byte ^ s[(s[i] + s[j]) % 256])
    return bytes(out)


def write_pdf(path, pages, encrypt_user_password=None):
    """pages: list of (media_box, content_stream, extra_page_entries)."""
    objects = {}  # number -> bytes (dictionary or stream without "obj" wrapper)
    file_id = hashlib.md5(path.encode()).digest()
    key = None
    encrypt_entry = b""
    if encrypt_user_password is not None:
        owner = hashlib.md5((b"owner" + PAD)[:32]).digest()[:5]
        user_padded = (encrypt_user_password.encode() + PAD)[:32]
        o_value = rc4(owner, user_padded)
        permissions = -4
        key = hashlib.md5(user_padded + o_value + permissions.to_bytes(4, "little", signed=True) + file_id).digest()[:5]
        u_value = rc4(key, PAD)
        objects[99] = (b"<< /Filter /Standard /V 1 /R 2 /O <" + o_value.hex().encode() + b"> /U <"
                       + u_value.hex().encode() + b"> /P " + str(permissions).encode() + b" >>")
        encrypt_entry = b" /Encrypt 99 0 R"

    def stream(number, content):
        if key is not None:
            object_key = hashlib.md5(key + number.to_bytes(3, "little") + b"\0\0").digest()[:10]
            content = rc4(object_key, content)
        return b"<< /Length " + str(len(content)).encode() + b" >>\nstream\n" + content + b"\nendstream"

    objects[1] = b"<< /Type /Catalog /Pages 2 0 R >>"
    kids = []
    for index, (box, content, extra) in enumerate(pages):
        page_number, content_number = 3 + 2 * index, 4 + 2 * index
        kids.append(f"{page_number} 0 R".encode())
        objects[page_number] = (b"<< /Type /Page /Parent 2 0 R /MediaBox [" + box.encode() + b"] /Contents "
                                + str(content_number).encode() + b" 0 R" + extra.encode() + b" >>")
        objects[content_number] = stream(content_number, content.encode())
    objects[2] = b"<< /Type /Pages /Kids [" + b" ".join(kids) + b"] /Count " + str(len(pages)).encode() + b" >>"

    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = {}
    for number in sorted(objects):
        offsets[number] = len(out)
        out += str(number).encode() + b" 0 obj\n" + objects[number] + b"\nendobj\n"
    size = max(objects) + 1
    xref = len(out)
    out += b"xref\n0 " + str(size).encode() + b"\n0000000000 65535 f \n"
    for number in range(1, size):
        if number in offsets:
            out += f"{offsets[number]:010d} 00000 n \n".encode()
        else:
            out += b"0000000000 65535 f \n"
    out += (b"trailer\n<< /Size " + str(size).encode() + b" /Root 1 0 R" + encrypt_entry + b" /ID [<"
            + file_id.hex().encode() + b"> <" + file_id.hex().encode() + b">] >>\nstartxref\n"
            + str(xref).encode() + b"\n%%EOF\n")
    open(path, "wb").write(bytes(out))


SHAPES = ("1 0 0 rg 10 10 40 30 re f\n"          # red rectangle, bottom left (PDF's y axis points up)
          "0 0 1 rg 50 40 40 30 re f\n"          # blue rectangle, top right
          "0 0.5 0 RG 3 w 20 60 m 45 75 l 70 50 l S\n"  # green antialiased stroke
          "1 0.8 0 rg 80 20 m 80 25.5 75.5 30 70 30 c 64.5 30 60 25.5 60 20 c "
          "60 14.5 64.5 10 70 10 c 75.5 10 80 14.5 80 20 c f\n")  # orange disc from Bézier curves

write_pdf("shapes.pdf", [("0 0 100 80", SHAPES, "")])
write_pdf("two-pages.pdf", [("0 0 100 80", SHAPES, ""),
                            ("0 0 60 90", "0 0.6 0 rg 0 0 60 45 re f 0.2 0.2 0.2 rg 15 60 30 20 re f", "")])
write_pdf("rotated.pdf", [("0 0 100 50", "1 0 0 rg 0 0 50 50 re f 0 0 1 rg 50 0 50 25 re f", " /Rotate 90")])
write_pdf("fractional.pdf", [("0 0 50.5 30.25", "0.5 0 0.5 rg 0 0 50.5 30.25 re f", "")])
write_pdf("encrypted.pdf", [("0 0 40 30", "0 0 1 rg 0 0 40 30 re f", "")], encrypt_user_password="secret")
