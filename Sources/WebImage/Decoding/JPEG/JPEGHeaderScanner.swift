import Foundation

/// Watches a JPEG's bytes arrive and says once they hold its whole header: every marker segment up to and including
/// the first scan's header (SOS), which is where the frame size, the EXIF, XMP and IPTC segments and the colour
/// profile all are. Closed with an end-of-image marker, that prefix reads as a whole file to a properties reader.
/// For callers that need a file's description and none of its pixels (``EarlyStop/header``).
struct JPEGHeaderScanner: PrefixScanner {
    private var position = 0
    private var verdict = PrefixVerdict.needsMore

    mutating func advance(_ bytes: UnsafeRawBufferPointer) -> PrefixVerdict {
        guard verdict == .needsMore else { return verdict }
        guard bytes.count >= position else { return finish(.never) }
        if position == 0 {
            guard let starts = JPEGSegments.startsImage(bytes) else { return .needsMore }
            guard starts else { return finish(.never) }
            position = 2
        }
        while position < bytes.count {
            // Stray bytes between segments, a standalone marker or a bad length: not a header this reads.
            guard bytes[position] == 0xFF else { return finish(.never) }
            switch JPEGSegments.read(bytes, at: position) {
            case .marker(let segment):
                guard !JPEGSegments.standsAlone(segment.marker) else { return finish(.never) }
                position = segment.payload.upperBound
                if segment.marker == 0xDA { return finish(.enough(length: position)) }
            case .truncated:
                return .needsMore
            case .badLength:
                return finish(.never)
            }
        }
        return .needsMore
    }

    static func prefix(of data: Data, length: Int) -> Data {
        JPEGPrefixScanner.prefix(of: data, length: length)
    }

    private mutating func finish(_ verdict: PrefixVerdict) -> PrefixVerdict {
        self.verdict = verdict
        return verdict
    }
}
