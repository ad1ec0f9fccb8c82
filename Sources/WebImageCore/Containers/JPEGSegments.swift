/// One marker of a JPEG's header and, for a marker with a length, its segment.
package struct JPEGSegment: Equatable {
    /// The marker byte (the one after 0xFF and any fill bytes).
    package let marker: UInt8
    /// Where the marker byte is; the 0xFF before it is at `markerIndex - 1`.
    package let markerIndex: Int
    /// The segment's payload (after its two length bytes); empty, right after the marker, for a marker without
    /// a length.
    package let payload: Range<Int>

    package init(marker: UInt8, markerIndex: Int, payload: Range<Int>) {
        self.marker = marker
        self.markerIndex = markerIndex
        self.payload = payload
    }

    /// Where the next marker is looked for.
    package var next: Int { payload.upperBound }
}

/// The one reader of JPEG marker segments (ITU T.81 §B.1), shared by the header scanner, the prefix scanner and
/// the eighth-scale decoder, so that they agree on what a marker is and which markers start a frame.
package enum JPEGSegments {
    /// What is at a 0xFF.
    package enum Read: Equatable {
        /// A marker, with its segment when it has one.
        case marker(JPEGSegment)
        /// The data ends before the marker byte (`nil`) or inside the segment of this marker.
        case truncated(marker: UInt8?)
        /// The segment of this marker states a length below 2 (the length counts its own two bytes).
        case badLength(marker: UInt8)
    }

    /// Reads the marker at `position`, which holds 0xFF: fill bytes (further 0xFF) are skipped, then the marker
    /// byte and, unless the marker stands alone, its length and payload, checked to lie inside `bytes`.
    package static func read(_ bytes: UnsafeRawBufferPointer, at position: Int) -> Read {
        var index = position + 1
        while index < bytes.count, bytes[index] == 0xFF { index += 1 }
        guard index < bytes.count else { return .truncated(marker: nil) }
        let marker = bytes[index]
        if standsAlone(marker) {
            return .marker(JPEGSegment(marker: marker, markerIndex: index, payload: (index + 1)..<(index + 1)))
        }
        guard index + 2 < bytes.count else { return .truncated(marker: marker) }
        let length = Int(bytes[index + 1]) << 8 | Int(bytes[index + 2])
        guard length >= 2 else { return .badLength(marker: marker) }
        let end = index + 1 + length
        guard end <= bytes.count else { return .truncated(marker: marker) }
        return .marker(JPEGSegment(marker: marker, markerIndex: index, payload: (index + 3)..<end))
    }

    /// Whether `bytes` start as a JPEG does (SOI, then a marker's 0xFF); `nil` while fewer than three bytes are in.
    package static func startsImage(_ bytes: UnsafeRawBufferPointer) -> Bool? {
        guard bytes.count >= 3 else { return nil }
        return bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF
    }

    /// Markers without a length: a stuffed zero (0xFF 0x00, data rather than a marker), TEM, RST0–RST7, SOI and
    /// EOI.
    package static func standsAlone(_ marker: UInt8) -> Bool {
        marker == 0x00 || marker == 0x01 || (0xD0...0xD9).contains(marker)
    }

    /// Whether `marker` starts a frame (SOF0–SOF15) as libjpeg reads it: every 0xC0–0xCF but DHT (0xC4) and DAC
    /// (0xCC). 0xC8 (JPG, reserved for extensions) is among them: libjpeg refuses it as an unsupported process.
    package static func startsFrame(_ marker: UInt8) -> Bool {
        (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xCC
    }
}
