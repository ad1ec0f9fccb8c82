import Testing
@testable import WebImageCLI

@Suite struct ProgressBarRendererTests {
    @Test func imagesDecideTheBarWhenLengthsAreUnknown() {
        let snapshot = ProgressSnapshot(completedImages: 12, totalImages: 100, receivedBytes: 1_234_567,
                                        expectedBytes: nil, elapsedSeconds: 2)
        // 0.12 done after 2 s: 14.67 s left, shown rounded up; 617 283.5 B/s.
        let counters = "12/100 images  1.2 MB  617.3 kB/s  0:15 left"
        let bar = "[" + String(repeating: "#", count: 3) + String(repeating: ".", count: 29) + "]  "
        #expect(ProgressBarRenderer.render(snapshot, width: 80) == bar + counters)
        #expect(ProgressBarRenderer.render(snapshot, width: 80).count == 80)
    }

    @Test func bytesDecideTheBarWhenEveryLengthIsKnown() {
        let snapshot = ProgressSnapshot(completedImages: 1, totalImages: 4, receivedBytes: 1_500_000,
                                        expectedBytes: 2_000_000, bytesCoverEveryImage: true, elapsedSeconds: 3)
        #expect(snapshot.fractionCompleted == 0.75)
        #expect(snapshot.secondsLeft == 1)
        let counters = "1/4 images  1.5 MB of 2.0 MB  500.0 kB/s  0:01 left"
        let barWidth = 70 - counters.count - 4
        let bar = "[" + String(repeating: "#", count: barWidth * 3 / 4) + String(repeating: ".", count: barWidth - barWidth * 3 / 4) + "]  "
        #expect(ProgressBarRenderer.render(snapshot, width: 70) == bar + counters)
    }

    @Test func lengthsOfOnlySomeImagesFallBackToImageCounts() {
        let snapshot = ProgressSnapshot(completedImages: 1, totalImages: 4, receivedBytes: 900,
                                        expectedBytes: 1000, bytesCoverEveryImage: false, elapsedSeconds: 1)
        #expect(snapshot.fractionCompleted == 0.25)
        #expect(ProgressBarRenderer.render(snapshot, width: 60).hasSuffix("1/4 images  900 B  900 B/s  0:03 left"))
    }

    @Test func nothingKnownYetShowsPlaceholders() {
        let snapshot = ProgressSnapshot(completedImages: 0, totalImages: 3, receivedBytes: 0, expectedBytes: nil,
                                        elapsedSeconds: 0)
        #expect(ProgressBarRenderer.render(snapshot, width: 50)
                == "[" + String(repeating: ".", count: 11) + "]  0/3 images  0 B  -- B/s  --:-- left")
    }

    @Test func finishedBatchHasAFullBarAndNoTimeLeft() {
        let snapshot = ProgressSnapshot(completedImages: 5, totalImages: 5, receivedBytes: 5000,
                                        expectedBytes: 5000, bytesCoverEveryImage: true, elapsedSeconds: 1)
        let counters = "5/5 images  5.0 kB of 5.0 kB  5.0 kB/s  --:-- left"
        #expect(ProgressBarRenderer.render(snapshot, width: 80)
                == "[" + String(repeating: "#", count: 80 - counters.count - 4) + "]  " + counters)
    }

    @Test func narrowTerminalsGetTheCountersCutWithoutABar() {
        let snapshot = ProgressSnapshot(completedImages: 2, totalImages: 9, receivedBytes: 10, expectedBytes: nil,
                                        elapsedSeconds: 1)
        #expect(ProgressBarRenderer.render(snapshot, width: 20) == "2/9 images  10 B  10")
        #expect(ProgressBarRenderer.render(snapshot, width: 0) == "")
    }

    @Test(arguments: [(Int64(0), "0 B"), (999, "999 B"), (1000, "1.0 kB"), (1049, "1.0 kB"), (1050, "1.1 kB"),
                      (999_949, "999.9 kB"), (999_950, "1.0 MB"), (12_345_678, "12.3 MB"), (4_000_000_000, "4.0 GB"),
                      (5_000_000_000_000, "5000.0 GB"), (-5, "0 B")])
    func byteCounts(bytes: Int64, text: String) {
        #expect(ProgressBarRenderer.formatBytes(bytes) == text)
    }

    @Test(arguments: [(0.2, "0:01"), (59.2, "1:00"), (61, "1:01"), (600, "10:00"), (3725, "1:02:05"),
                      (Double.infinity, "99:59:59")])
    func durations(seconds: Double, text: String) {
        #expect(ProgressBarRenderer.formatDuration(seconds) == text)
    }
}
