// libFuzzer's driver entry point (LLVM compiler-rt, FuzzerDriver.cpp), for a fuzz target whose
// `main` SwiftPM names itself. Linked by -sanitize=fuzzer; nothing references it in other builds.
#ifndef CFUZZER_H
#define CFUZZER_H
#include <stddef.h>
#include <stdint.h>

/// Parses libFuzzer's flags from `argv` and runs `callback` on each input; returns the exit status.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
