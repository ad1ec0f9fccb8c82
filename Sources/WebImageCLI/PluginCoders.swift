import WebImage
import WebImageAVIF
import WebImageHEIF
import WebImageJXL
import WebImagePDF
import WebImageSVG
import WebImageTIFF

/// The tool reads and writes every format the package has a coder for: the plugin products are registered with
/// the shared registry before any command runs (the library itself starts with the built-in coders only).
enum PluginCoders {
    static func register() {
        // libavif does not read thumbnail items; libheif reads them in AVIF files too (`enforce_thumbnail`).
        let avif = AVIFCoder(embeddedThumbnails: { try HEIFCoder.embeddedThumbnail(of: $0, options: $1) })
        for coder: any ImageCoder in [avif, HEIFCoder(), JXLCoder(), SVGCoder(), PDFCoder(), TIFFCoder()] {
            ImageCoders.shared.add(coder)
        }
    }
}
