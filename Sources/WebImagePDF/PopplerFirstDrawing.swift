import CPoppler
import Foundation
import WebImage

/// The process's first poppler drawing, made once before any other. The first time poppler draws a page it makes
/// two colour profiles (sRGB and CIE XYZ) and keeps them in process-wide variables that it checks and fills
/// without a lock (poppler 22.12, `GfxState`'s constructor): two first drawings at once, on two threads, both
/// fill them, and one pair is lost (LeakSanitizer saw its 13 KB once at a test run's exit) or, worse, freed
/// while still in use. Swift runs a `static let` initializer once, whatever the threads, so the first drawing
/// is made there, of a one-point page, and every later drawing finds the profiles made.
enum PopplerFirstDrawing {
    /// Whether the first drawing succeeded (a failure leaves the race open; it never stops a decode).
    static let made: Bool = {
        guard let document = try? PDFDocument(opening: onePointPage), let page = try? document.page(0) else {
            return false
        }
        return (try? page.render(into: PixelSize(width: 1, height: 1))) != nil
    }()

    /// A PDF of one blank page one point square, with an exact cross-reference table (so that poppler reads it
    /// as written, without rebuilding the table and without a warning). Made when asked, not kept: a `Data` a
    /// global still holds at exit is reported as a leak by LeakSanitizer.
    static var onePointPage: Data {
        let objects = ["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                       "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 1 1] >>"]
        var text = "%PDF-1.4\n"
        var offsets: [Int] = []
        for (index, body) in objects.enumerated() {
            offsets.append(text.utf8.count)
            text += "\(index + 1) 0 obj\n\(body)\nendobj\n"
        }
        let table = text.utf8.count
        // Each entry is exactly 20 bytes: ten digits of offset, five of generation, the kind, a space and a newline.
        text += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for offset in offsets { text += String(repeating: "0", count: 10 - String(offset).count) + "\(offset) 00000 n \n" }
        text += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(table)\n%%EOF\n"
        return Data(text.utf8)
    }
}
