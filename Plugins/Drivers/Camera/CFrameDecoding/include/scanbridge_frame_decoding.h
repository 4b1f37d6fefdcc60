// What a camera's decoding thread and its decoder process (scanbridge-zxing) say to each
// other over a socket pair, on one machine (native byte order). The decoder runs zxing-cpp
// in a process of its own: a frame that makes the library abort or hang (zxing-cpp 1.4, as
// Debian builds it, keeps assertions that some tilted barcodes fail) costs that frame, never
// the daemon. docs/architecture.md, Design decisions.
#ifndef SCANBRIDGE_FRAME_DECODING_H
#define SCANBRIDGE_FRAME_DECODING_H

#include <stdint.h>
#include <sys/types.h>

#define SCANBRIDGE_DECODE_MAGIC 0x53424446u
/// The largest side of a frame, as GrayFrame accepts.
#define SCANBRIDGE_DECODE_MAX_SIDE 8192u
/// The most codes one reply holds, and the most content bytes one code carries (a QR code
/// holds at most 2,953 bytes, a PDF417 1,850).
#define SCANBRIDGE_DECODE_MAX_CODES 255u
#define SCANBRIDGE_DECODE_MAX_CODE_BYTES 65536u

/// A frame to decode: this header, then `width` × `height` bytes of 8-bit luma, row after row.
typedef struct scanbridge_decode_request {
    uint32_t magic;
    uint32_t width;
    uint32_t height;
    /// ZXing::BarcodeFormat bits.
    uint32_t formats;
    uint32_t max_codes;
} scanbridge_decode_request;

/// The answer: this header, then `count` codes, each a `scanbridge_decode_code` and its
/// `length` content bytes.
/// The decoder sends one empty reply as it starts, before any request: a decoder that
/// cannot run (a library missing) ends without it.
typedef struct scanbridge_decode_reply {
    uint32_t magic;
    uint32_t count;
} scanbridge_decode_reply;

/// One code: its format (a ZXing::BarcodeFormat bit), its AIM symbology identifier ("]Q1",
/// NUL-padded), its four corners (x, y; clockwise from the code's top left as printed), and
/// the length of its content: the bytes as encoded, no character set conversion, GS1
/// separators as 0x1D and the leading FNC1 left out.
typedef struct scanbridge_decode_code {
    uint32_t format;
    char aim[8];
    int32_t corners[8];
    uint32_t length;
} scanbridge_decode_code;

/// Starts the decoder at `path` with one end of a new socket pair as its standard input and
/// output, every other descriptor closed and every signal at its default; the other end
/// (close-on-exec) is `*socket`. Returns 0, or the errno that stopped it. A socket, not
/// pipes: the daemon sends with MSG_NOSIGNAL, so a decoder that died costs an EPIPE, not
/// the daemon.
int scanbridge_decoder_spawn(const char *path, pid_t *pid, int *socket);

#endif
