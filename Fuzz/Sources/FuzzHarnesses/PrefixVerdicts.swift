import Foundation
@testable import WebImage

/// The verdict of a scanner `make` gives on `data` at once, after checking that another fed it in pieces of
/// `piece` bytes comes to the same: the early-stop harnesses' shared rule.
func verdictInPiecesAndAtOnce<Scanner: PrefixScanner>(
    _ data: Data, piece: Int, _ make: () -> Scanner
) -> PrefixVerdict {
    var whole = make()
    let once = data.withUnsafeBytes { whole.advance($0) }
    var pieces = make()
    var verdict = PrefixVerdict.needsMore
    var end = 0
    while verdict == .needsMore, end < data.count {
        end = min(data.count, end + piece)
        verdict = data.prefix(end).withUnsafeBytes { pieces.advance($0) }
    }
    precondition(verdict == once, "\(Scanner.self): \(verdict) in pieces of \(piece), \(once) at once")
    return once
}
