import WebImage

/// What a parsed AVIF container says about its image, before any AV1 data is decoded: the facts both
/// ``AVIFCoder/properties(of:)`` and the decoders work from, so that they always agree.
struct AVIFHeader {
    /// Width and height of the stored (not yet turned) pixels: `ispe` of the primary item, or the track size
    /// of a sequence.
    let storedSize: PixelSize
    /// Frames in a sequence (`avis`); 1 for a still image.
    let frameCount: Int
    /// An alpha plane (auxiliary alpha item or track) is declared.
    let hasAlpha: Bool
    /// From `irot`/`imir`, else Exif; see ``AVIFOrientation``.
    let orientation: Orientation
    /// The playable duration of every frame in seconds; empty for a still image.
    let frameDurations: [Double]
    /// Runs in the sequence's time-to-sample table (0 for a still image): what libavif's per-frame timing costs.
    let timingRuns: Int

    /// Reads the header of `handle`, which parsed `bytes`.
    init(_ handle: AVIFDecoderHandle, bytes: UnsafeRawBufferPointer) throws {
        let image = handle.image
        storedSize = PixelSize(width: Int(image.width), height: Int(image.height))
        frameCount = handle.imageCount
        hasAlpha = handle.alphaPresent
        orientation = AVIFOrientation.of(image)
        guard frameCount > 1 else {
            frameDurations = []
            timingRuns = 0
            return
        }
        if let table = AVIFTimeToSample(bytes) {
            let timescale = Double(handle.decoder.pointee.timescale)
            frameDurations = table.deltas(frameCount: frameCount).map {
                FrameDuration.playable(seconds: timescale > 0 ? Double($0) / timescale : 0)
            }
            timingRuns = table.runs.count
        } else {
            // libavif found a sequence where the box walk did not: ask libavif, for a bounded number of frames.
            guard frameCount <= 1000 else {
                throw ImageError(.badImageData, "AVIF: the sequence's timing table cannot be read")
            }
            frameDurations = try (0..<frameCount).map {
                FrameDuration.playable(seconds: try handle.duration(ofFrame: $0))
            }
            timingRuns = frameCount
        }
    }

    /// Several frames that play in time.
    var isAnimated: Bool { frameCount > 1 }

    /// libavif 0.11 does not read the edit list that carries a sequence's repetition count, so a sequence
    /// plays forever (0), as browsers play them; a still image plays once.
    var loopCount: Int { isAnimated ? 0 : 1 }

    /// Throws when decoding `frames` frames in order would make libavif 0.11 walk its timing table for too
    /// long: each frame it decodes costs it (frames before it) × (table runs). A real sequence has one run
    /// or a few; a crafted one with a run per frame would keep the decoder busy for minutes.
    func checkTimingCost(frames: Int) throws {
        let runs = Double(min(max(timingRuns, 1), frames))
        let cost = Double(frames) * Double(frames) / 2 * runs
        guard cost <= 2e9 else {
            throw ImageError(
                .imageTooLarge, "AVIF: \(frames) frames with \(timingRuns) timing runs are too costly to decode")
        }
    }
}
