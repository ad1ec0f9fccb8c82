#include "CLibFuzzer.h"

// Weak: the harnesses' program links libFuzzer's runtime (without its `main`) only when `scripts/fuzz` builds it;
// the same program built by `swift test` has no driver and says so instead of failing to link.
extern int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*test_one_input)(const uint8_t *, size_t))
    __attribute__((weak));

int clibfuzzer_run(int *argc, char ***argv, clibfuzzer_test_one_input test_one_input) {
    if (LLVMFuzzerRunDriver == NULL) {
        return -1;
    }
    return LLVMFuzzerRunDriver(argc, argv, test_one_input);
}
