import ArgumentParser
import Foundation
import WebImage

/// `webimage convert`: decode, optionally thumbnail / pick a frame / transform, and encode.
struct ConvertCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert an image to another format, size or shape.",
        discussion: """
            The output format comes from OUT's extension unless --format is given. `rgba` writes raw 8-bit RGBA: \
            straight (not premultiplied) alpha, rows top to bottom, no header, EXIF orientation applied.

            Transform flags apply in the order given. Animated images keep every frame and duration when written \
            as .gif, .webp or .png (APNG); --frame K (counting from 0) extracts one fully composited frame.

            Colour: a source's ICC profile or colour code points are applied and the output is sRGB, untagged \
            (Display P3, Adobe RGB, CMYK and HDR sources included). --keep-color-profile keeps the samples as \
            stored and writes the profile into PNG, JPEG, WebP, AVIF and JPEG XL outputs.

            Depth: outputs have 8 bits a sample. --preserve-hdr keeps a source's deeper samples (16-bit PNG and \
            TIFF, 10 and 12-bit AVIF and HEIC, JPEG XL) through the transforms that work in 16 bits (resize, \
            crop, flips, quarter turns, blur, rounded corners) into PNG (16-bit), AVIF (10 or 12-bit) and JPEG XL \
            outputs.

            Examples:
              webimage convert photo.jpg photo.webp --quality 80
              webimage convert photo.jpg thumb.png --thumbnail 256
              webimage convert anim.gif frame3.png --frame 3
              webimage convert photo.jpg out.png --resize 400x300 --fit aspectFill --round 24
              webimage convert p3-photo.jpg p3-photo.webp --keep-color-profile
              webimage convert scan16.png scan.avif --preserve-hdr --resize 1200x900 --fit aspectFit
            """
    )

    @Argument(help: "The image to read (a path, a file:// URL, or - for standard input).")
    var input: String

    @Argument(help: "The file to write.")
    var output: String

    @Option(help: ArgumentHelp("Output format: jpeg, png, webp, gif, avif, jxl, bmp, ico (those this build writes) or rgba.", valueName: "format"))
    var format: String?

    @Option(help: ArgumentHelp("Quality for JPEG and lossy WebP, 0-100 (default 90).", valueName: "0-100"))
    var quality: Int?

    @Option(help: ArgumentHelp("Decode to fit inside N×N pixels (never larger than the source).", valueName: "N"))
    var thumbnail: Int?

    @Option(help: ArgumentHelp("Write only frame K of an animation or page K of a document (the first is 0).", valueName: "K"))
    var frame: Int?

    @Flag(help: "Keep the source's colour samples and write its ICC profile into the output, instead of converting to sRGB.")
    var keepColorProfile = false

    @Flag(name: .customLong("preserve-hdr"), help: ArgumentHelp(
        "Keep a source's samples of more than 8 bits in PNG, AVIF and JPEG XL outputs (imgproxy's preserve_hdr)."))
    var preserveHDR = false

    @OptionGroup(title: "Transforms (applied in the order given)")
    var transforms: TransformFlags

    func validate() throws {
        if let quality, !(0...100).contains(quality) { throw ValidationError("--quality takes 0 to 100") }
        if let thumbnail, thumbnail <= 0 { throw ValidationError("--thumbnail takes a size above zero") }
        if let frame, frame < 0 { throw ValidationError("--frame counts from 0") }
        _ = try outputFormat()
        _ = try TransformFlags.steps(in: CommandLine.arguments)
    }

    func run() async throws {
        do {
            try convert()
        } catch let error as ImageError {
            Console.error("\(input): \(error)")
            throw ExitCode.failure
        }
    }

    private func convert() throws {
        let data = try InputReader.read(input)
        var decodeOptions = DecodeOptions(fileNameHint: input, colorHandling: keepColorProfile ? .original : .sRGB,
                                          keepsHighBitDepth: preserveHDR)
        if let thumbnail { decodeOptions.thumbnailPixelSize = PixelSize(width: thumbnail, height: thumbnail) }
        if let frame {
            // Checked from the headers first, so that a page past the end of a long PDF renders nothing.
            let frameCount = try ImageCoders.shared.properties(of: data).frameCount
            guard frame < frameCount else {
                throw ImageError(.invalidParameter, "frame \(frame) asked, the image has \(frameCount)")
            }
            decodeOptions.frameIndex = frame
        }
        var image = try ImageCoders.shared.decode(data, options: decodeOptions)
        if let frame {
            // A coder that picks one frame returns just that one; the others return them all.
            var picked = image.frames.count > 1 ? image.frames[min(frame, image.frames.count - 1)] : image.frames[0]
            picked.duration = 0
            image.frames = [picked]
            image.loopCount = 1
        }
        image = try TransformRunner.apply(try TransformFlags.steps(in: CommandLine.arguments), to: image)
        switch try outputFormat() {
        case .rgba:
            // Written from the pixel memory itself: a copy would cost a 12 MP photo 48 MB more and its page faults.
            try image.pixels.withUnsafeBytes { try OutputFile.write($0, to: output) }
        case .encoded(let format):
            var options = EncodeOptions()
            if let quality { options.quality = Double(quality) / 100 }
            let bytes = try ImageCoders.shared.encode(image, as: format, options: options)
            try bytes.withUnsafeBytes { try OutputFile.write($0, to: output) }
        }
    }

    private enum OutputFormat { case rgba, encoded(ImageFormat) }

    /// The names `--format` takes in this build: the formats some registered coder writes, and `rgba`.
    private static var writableFormats: String {
        (ImageFormat.allCases.filter { ImageCoders.shared.canEncode(to: $0) }.map(\.rawValue) + ["rgba"])
            .joined(separator: ", ")
    }

    private func outputFormat() throws -> OutputFormat {
        let name = format ?? URL(fileURLWithPath: output).pathExtension
        if name.lowercased() == "rgba" { return .rgba }
        guard let format = ImageFormat(fileExtension: name), ImageCoders.shared.canEncode(to: format) else {
            let what = self.format == nil ? "the extension of \(output)" : "--format \(name)"
            throw ValidationError("\(what) names no format this tool writes (\(Self.writableFormats))")
        }
        return .encoded(format)
    }
}
