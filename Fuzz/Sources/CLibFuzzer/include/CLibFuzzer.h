#ifndef CLIBFUZZER_H
#define CLIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

/// One fuzzing input, as libFuzzer hands it to a harness.
typedef int (*clibfuzzer_test_one_input)(const uint8_t *data, size_t size);

/// Runs libFuzzer's driver over `test_one_input` with the program's arguments when libFuzzer's runtime is linked
/// into the program, and returns its status; returns -1 at once when it is not (a program built without it).
int clibfuzzer_run(int *argc, char ***argv, clibfuzzer_test_one_input test_one_input);

#endif
