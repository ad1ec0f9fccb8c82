import Foundation
import WebImage
import WebImageAVIF
import WebImageHEIF
import WebImageServer

/// What decoder isolation costs a render of an isolated format: a 300 px thumbnail of a 1 MP HEIC and AVIF,
/// planned from the source's header as the proxy plans it, in this process, through a decode helper in two
/// exchanges (properties, then the decode: the source sent twice) and in one planned exchange (the properties
/// come back first, the source is sent once). Wall time (the work runs in the helper), medians of alternating
/// rounds, one helper.
enum IsolationSuite {
    static func run(data folder: URL, helper executable: URL) throws {
        let coders = ImageCoders(coders: ImageCoders.builtIn)
        for coder: any ImageCoder in [AVIFCoder(), HEIFCoder()] { coders.add(coder) }
        let pool = try DecodeHelperPool(configuration: .init(executable: executable,
                                                             arguments: ["_decode-helper", "--memory-limit-mb", "2048"],
                                                             size: 1))
        let isolated = ImageCoders.isolating([.heic, .avif], in: pool, behind: coders)
        let plan = { (properties: ImageProperties) in
            DecodeOptions(thumbnailPixelSize: PixelSize(width: 300, height: 300 * properties.size.height
                                                            / properties.size.width),
                          firstFrameOnly: true)
        }
        // "swift-web-image" is what the proxy does: one planned exchange.
        for (label, file) in [("1 MP HEIC", "formats/photo-1mp.heic"), ("1 MP AVIF", "formats/photo-1mp.avif")] {
            let source = try Data(contentsOf: folder.appendingPathComponent(file))
            var sides: [String: [Double]] = [:]
            for round in 0..<42 {
                let times = [
                    ("in process, not isolated", try wall { _ = try coders.decode(source, planning: plan) }),
                    ("decode helper, two exchanges (until 2026-11-30)",
                     try wall { _ = try isolated.decode(source, options: plan(isolated.properties(of: source))) }),
                    ("swift-web-image", try wall { _ = try isolated.decode(source, planning: plan) }),
                ]
                if round > 0 { for (side, time) in times { sides[side, default: []].append(time) } }  // 0 warms up
            }
            let name = "\(label) (\(source.count / 1000) KB) to 300 px, planned from its header"
            for (side, samples) in sides.sorted(by: { $0.key < $1.key }) {
                Measurement(suite: "isolation", name: name, implementation: side,
                            value: samples.sorted()[samples.count / 2], unit: "ms").emit()
            }
        }
    }

    private static func wall(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15
    }
}
