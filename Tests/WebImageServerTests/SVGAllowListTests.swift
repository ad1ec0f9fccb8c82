import Foundation
import Testing

@testable import WebImageServer

/// The sanitiser as an allow-list: what a browser would run, submit or load from an SVG answered as SVG is gone,
/// byte for byte, and what draws is written as it came.
@Suite struct SVGAllowListTests {
    private static func sanitized(_ document: String) throws -> String {
        let clean = String(decoding: try SVGSanitizer.sanitized(Data(document.utf8)), as: UTF8.self)
        // Sanitising what was written changes nothing: it is a document the sanitiser reads as all drawing.
        #expect(try SVGSanitizer.sanitized(Data(clean.utf8)) == Data(clean.utf8))
        return clean
    }

    private static let declaration = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"

    /// The six ways a script survived the href-only check: an animated `href`/`xlink:href`, XHTML elements in an
    /// SVG (`object`, `embed`, a `button` with `formaction`) and an animated event handler.
    @Test func animatedReferencesHandlersAndForeignElementsAreGoneAndTheDrawingStays() throws {
        let hostile = """
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:h="http://www.w3.org/1999/xhtml" \
            xmlns:xlink="http://www.w3.org/1999/xlink" width="20" height="20">
            <defs><linearGradient id="g"><stop offset="0" stop-color="red"/><stop offset="1" stop-color="blue"/>\
            </linearGradient></defs>
            <a><set attributeName="href" to="javascript:alert(1)"/><text x="1" y="10">click</text></a>
            <a><animate attributeName="xlink:href" values="javascript:alert(2)"/>\
            <path d="M0 0L10 10" fill="url(#g)"/></a>
            <h:object data="javascript:alert(3)"/>
            <h:embed src="javascript:alert(4)"/>
            <h:button formaction="javascript:alert(5)">go</h:button>
            <rect id="r" width="5" height="5"><set attributeName="onmouseover" to="alert(6)"/></rect>
            <use href="#r" x="10"/>
            <rect width="1" height="1"><animate attributeName="x" from="0" to="10" dur="1s"/></rect>
            </svg>
            """
        let expected = Self.declaration + """
            <svg height="20" width="20" xmlns="http://www.w3.org/2000/svg" \
            xmlns:xlink="http://www.w3.org/1999/xlink">
            <defs><linearGradient id="g"><stop offset="0" stop-color="red"/><stop offset="1" stop-color="blue"/>\
            </linearGradient></defs>
            <a><text x="1" y="10">click</text></a>
            <a><path d="M0 0L10 10" fill="url(#g)"/></a>



            <rect height="5" id="r" width="5"/>
            <use href="#r" x="10"/>
            <rect height="1" width="1"><animate attributeName="x" dur="1s" from="0" to="10"/></rect>
            </svg>
            """
        #expect(try Self.sanitized(hostile) == expected)
    }

    @Test func stylesAndValuesThatLoadAnythingAreLeftOut() throws {
        let hostile = """
            <svg xmlns="http://www.w3.org/2000/svg">\
            <style>@import url(https://evil.example/a.css);</style>\
            <style>rect { fill: url( "https://evil.example/p.svg#p" ) }</style>\
            <style>rect { fill: \\75rl(https://evil.example/x) }</style>\
            <style>rect { fill: image-set("https://evil.example/i.png" 1x) }</style>\
            <style><![CDATA[rect > g { fill: URL( '#g' ) }]]></style>\
            <rect style="fill: url('https://evil.example/x')" fill="url(https://evil.example/y#a)" stroke="url(#g)"/>\
            <rect style="stroke: javascript:alert(1)" mask="expression(alert(2))" opacity="0.5"/>\
            <image href="data:image/svg+xml;base64,PHN2Zz4=" width="1"/>\
            <image href=" data:image/png;base64,AA&#10;AA " width="2"/>\
            <image href="https://evil.example/z.png" width="3"/>\
            <feImage href="data:image/SVG+xml,x"/>\
            <use href="data:image/png;base64,AAAA"/>\
            <use href="\t#r"/>\
            </svg>
            """
        let expected = Self.declaration + """
            <svg xmlns="http://www.w3.org/2000/svg">\
            <style>rect &gt; g { fill: URL( '#g' ) }</style>\
            <rect stroke="url(#g)"/>\
            <rect opacity="0.5"/>\
            <image width="1"/>\
            <image href="data:image/png;base64,AAAA" width="2"/>\
            <image width="3"/>\
            <feImage/>\
            <use/>\
            <use href="#r"/>\
            </svg>
            """
        #expect(try Self.sanitized(hostile) == expected)
    }

    /// Namespaces as declared, not as spelled: a prefix is SVG's or XLink's only when it is declared so, an
    /// element in another namespace goes with its content, and qualified names are written back as they came.
    @Test func namespacesAreReadFromTheirDeclarations() throws {
        let hostile = """
            <s:svg xmlns:s="http://www.w3.org/2000/svg" xmlns:xlink="urn:not-xlink" \
            xmlns:l="http://www.w3.org/1999/xlink">\
            <s:use l:href="#a" xlink:href="javascript:alert(1)"/>\
            <g xmlns="http://www.w3.org/1999/xhtml"><script>alert(2)</script><rect/></g>\
            <g xmlns=""><rect width="1" height="1" s:onclick="alert(3)"/></g>\
            <h:rect xmlns:h="http://www.w3.org/2000/svg" width="3"/>\
            <x:script xmlns:x="http://www.w3.org/2000/svg">alert(4)</x:script>\
            <foreignObject><div xmlns="http://www.w3.org/1999/xhtml">alert(5)</div></foreignObject>\
            <u:rect width="4"/>\
            </s:svg>
            """
        let expected = Self.declaration + """
            <s:svg xmlns="http://www.w3.org/2000/svg" xmlns:l="http://www.w3.org/1999/xlink" \
            xmlns:s="http://www.w3.org/2000/svg">\
            <s:use l:href="#a"/>\
            <g><rect height="1" width="1"/></g>\
            <h:rect width="3" xmlns:h="http://www.w3.org/2000/svg"/>\
            </s:svg>
            """
        #expect(try Self.sanitized(hostile) == expected)
    }

    /// Only an SVG document is answered as one: HTML that merely holds an `<svg>` (which is how its bytes were
    /// taken for SVG) is refused, and an `svg` root without a namespace is given SVG's.
    @Test func theRootMustBeAnSVGElement() throws {
        for other in ["<html><body><svg xmlns=\"http://www.w3.org/2000/svg\"/></body></html>",
                      "<svg xmlns=\"http://www.w3.org/1999/xhtml\"><script>alert(1)</script></svg>",
                      "<g xmlns=\"http://www.w3.org/2000/svg\"/>", "<h:svg xmlns:h=\"urn:x\"/>"] {
            #expect(throws: SVGSanitizer.Failure.self, "\(other)") { try SVGSanitizer.sanitized(Data(other.utf8)) }
        }
        #expect(try Self.sanitized("<svg width=\"2\"><rect/></svg>")
                == Self.declaration + "<svg width=\"2\" xmlns=\"http://www.w3.org/2000/svg\"><rect/></svg>")
    }
}
