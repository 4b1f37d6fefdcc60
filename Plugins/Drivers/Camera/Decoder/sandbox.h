// The decoder's confinement. It reads frames a camera saw: a code crafted to exploit
// zxing-cpp runs here, never in the daemon, and from here it can reach nothing but the
// socket it came in on (docs/security.md, The camera's decoder).
#ifndef SCANBRIDGE_DECODER_SANDBOX_H
#define SCANBRIDGE_DECODER_SANDBOX_H

#include <cstdint>

namespace sandbox {

/// The exit status of a decoder that could not confine itself: it says no hello, and the
/// daemon reports the camera's decoder as not starting rather than running it unconfined.
constexpr int cannotConfine = 3;

/// Limits this process (no core file, no file descriptor past the three it has, no file
/// written, an address space a whole frame fits in many times over), asks the kernel to
/// kill it with the daemon, and installs the seccomp allow-list: reading and writing its
/// descriptors, memory that is never executable, the signals an abort raises, the timer of
/// `limitFrameCPU`, and exiting. Anything else (opening a file, a socket, running a
/// program) kills it with SIGSYS. False when the kernel refused any of it.
bool enter();

/// Bounds the CPU time of the frame about to be decoded: a decoder still busy after
/// `seconds` of CPU is killed by SIGPROF, whatever the daemon's own deadline does.
void limitFrameCPU(unsigned seconds);

/// Lets the CPU time of the next frame start from nothing.
void endFrame();

}  // namespace sandbox

#endif
