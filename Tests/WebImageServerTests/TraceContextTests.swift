import Foundation
import Testing
@testable import WebImageServer

/// W3C Trace Context's `traceparent`, read as the format says, and the samplers' decisions.
@Suite struct TraceContextTests {
    @Test func aValidHeaderIsReadAndWrittenBackUnchanged() throws {
        let text = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        let context = try #require(TraceContext(traceparent: text))
        #expect(context.traceHigh == 0x4bf9_2f35_77b3_4da6 && context.traceLow == 0xa3ce_929d_0e0e_4736)
        #expect(context.spanID == 0x00f0_67aa_0ba9_02b7 && context.sampled)
        #expect(context.traceparent == text)
        #expect(TraceContext(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")?.sampled == false)
        // Only the sampled bit of the flags counts.
        #expect(TraceContext(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03")?.sampled == true)
        // A later version may append fields; version 00 may not.
        #expect(TraceContext(traceparent: "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra") != nil)
    }

    @Test(arguments: [
        "", "00", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  // version ff is never valid
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",  // uppercase
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",  // no trace
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",  // no span
        "00-4bf92f3577b34da6a3ce929d0e0e473-600f067aa0ba902b7-01",  // dash misplaced
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7x01",
    ])
    func malformedHeadersAreIgnored(_ text: String) {
        #expect(TraceContext(traceparent: text) == nil)
    }

    @Test func xrayIdentifiersStartWithTheTimeAndRandomOnesDoNot() throws {
        let before = UInt64(Date().timeIntervalSince1970)
        let xray = TraceContext.newTrace(.xray, sampled: true)
        let after = UInt64(Date().timeIntervalSince1970)
        #expect((before...after).contains(xray.traceHigh >> 32))
        // Random ones: two never share their first half (2^-64).
        #expect(TraceContext.newTrace(.random, sampled: true).traceHigh
                != TraceContext.newTrace(.random, sampled: true).traceHigh)
        #expect(xray.spanID != 0 && xray.traceparent.count == 55)
    }

    @Test func aRatioKeepsThatShareOfTraceIdentifiers() {
        #expect(RequestTracer.ratioSamples(1, traceLow: .max))
        #expect(!RequestTracer.ratioSamples(0, traceLow: 0))
        #expect(RequestTracer.ratioSamples(0.5, traceLow: 0x7fff_ffff_ffff_f000))
        #expect(!RequestTracer.ratioSamples(0.5, traceLow: 0x8000_0000_0000_0000))
        var generator = SystemRandomNumberGenerator()
        let kept = (0..<20_000).filter { _ in RequestTracer.ratioSamples(0.25, traceLow: generator.next()) }.count
        // 5 000 expected; the binomial's standard deviation is 61, so this fails once in far more than 10^9 runs.
        #expect((4_500...5_500).contains(kept))
    }
}
