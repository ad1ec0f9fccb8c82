import Foundation
import FuzzSupport
import WebImage
import WebImageAVIF
import WebImageHEIF
import WebImageJXL
import WebImagePDF
import WebImageSVG
import WebImageTIFF

/// Every coder's header-only properties reader, and the metadata reader of every container, on any bytes:
/// whatever format detection picks, they must answer or throw, never trap, hang or read out of bounds.
private let coders: ImageCoders = {
    let coders = ImageCoders(coders: ImageCoders.builtIn)
    for coder: any ImageCoder in [AVIFCoder(), HEIFCoder(), JXLCoder(), SVGCoder(), PDFCoder(), TIFFCoder()] {
        coders.add(coder)
    }
    return coders
}()

func fuzzProperties(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = Data(UnsafeRawBufferPointer(start: start, count: count))
    if let metadata = ImageMetadata.read(from: data) {
        for block in [metadata.exif, metadata.xmp, metadata.iptc] {
            precondition((block?.count ?? 0) <= ImageMetadata.maximumBlockSize, "a metadata block over the limit")
        }
        _ = metadata.withOrientationUp()
    }
    if let properties = try? coders.properties(of: data) {
        precondition(properties.size.width > 0 && properties.size.height > 0 && properties.frameCount > 0,
                     "properties of an image with no pixels or frames: \(properties)")
    }
    return 0
}
