// scanbridge-zxing: a camera's decoder process. Confines itself (sandbox.h), says hello (an
// empty reply), then reads frames on standard input and answers each with the codes zxing-cpp (Debian's
// libzxing-dev, 1.4) finds in it, on standard output (CFrameDecoding, beside this folder, has the
// format). It ends at end of input, on a request it cannot take (status 2), or at once when it
// cannot confine itself (status 3). The daemon starts one per camera.
#include <scanbridge_frame_decoding.h>

#include <ZXing/ReadBarcode.h>

#include "sandbox.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace {

bool readAll(void *buffer, size_t size) {
    auto *bytes = static_cast<uint8_t *>(buffer);
    while (size > 0) {
        ssize_t got = read(STDIN_FILENO, bytes, size);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        bytes += got;
        size -= static_cast<size_t>(got);
    }
    return true;
}

bool writeAll(const void *buffer, size_t size) {
    const auto *bytes = static_cast<const uint8_t *>(buffer);
    while (size > 0) {
        ssize_t put = write(STDOUT_FILENO, bytes, size);
        if (put < 0 && errno == EINTR) continue;
        if (put <= 0) return false;
        bytes += put;
        size -= static_cast<size_t>(put);
    }
    return true;
}

/// The 2D codes are searched for in the whole frame, at every pixel. Data Matrix and Aztec
/// codes are looked for again when that found none, with a global threshold, at half the
/// frame's resolution, in the whole frame and then in four corner tiles, each five eighths
/// of the frame's width and height (a code up to an eighth of the frame across a centre line
/// lies wholly in one): zxing-cpp 1.4's local threshold loses them on faded labels (grey ink
/// on grey paper), and it looks for them from the middle of the image outward, missing one
/// off the middle of a frame. Half the resolution costs a quarter; a label small enough to
/// be lost by it is read by the first search unless it is faded too. A frame under 64
/// pixels a side is looked at again whole, at full size.
constexpr uint32_t secondLook =
    static_cast<uint32_t>(ZXing::BarcodeFormat::DataMatrix) | static_cast<uint32_t>(ZXing::BarcodeFormat::Aztec);

/// Linear codes are read along every third row, and along every third column for codes on
/// end: zxing-cpp's thorough search reads every line, both ways, and costs two thirds of a
/// frame; a label is many lines tall, so a third of them keeps every read of the corpus,
/// the tilted ITF-14 included, at a third of the cost.
constexpr int lineStep = 3;

/// A frame's CPU time at most: the largest frame takes a fraction of it, and the daemon's own
/// deadline (5 s of wall time by default) comes first; this bound holds whatever the daemon does.
constexpr unsigned frameCPUSeconds = 10;

constexpr uint32_t linearFormats = static_cast<uint32_t>(ZXing::BarcodeFormat::LinearCodes);

ZXing::BarcodeFormats formatsOf(uint32_t bits) { return ZXing::BarcodeFormats(static_cast<ZXing::BarcodeFormat>(bits)); }

/// zxing-cpp's limit on the codes of one search, for `maxCodes` (one at least).
uint8_t symbolLimit(int maxCodes) { return static_cast<uint8_t>(std::clamp(maxCodes, 1, 255)); }

ZXing::DecodeHints hintsFor(uint32_t formats, int maxCodes) {
    ZXing::DecodeHints hints;
    hints.setFormats(formatsOf(formats));
    hints.setMaxNumberOfSymbols(symbolLimit(maxCodes));
    // No search of a scaled-down copy: it costs a third more on a frame with no code, and
    // merging what it found with the full-size search is where zxing-cpp 1.4 asserts on
    // barcodes of a 720p frame.
    hints.setTryDownscale(false);
    // An ITF has no check character of its own: a scan line crossing a tilted one can read
    // a shorter valid code. Shops use ITF for GTIN-14 (ITF-14), whose last digit is a GS1
    // check digit: a code whose check fails is not taken (nor one of another length, by
    // FrameDecoder).
    hints.setValidateITFCheckSum(true);
    return hints;
}

/// Adds `found` to `results`, its corners mapped from the searched view's (x, y) to the
/// frame's by `place`, leaving out a code `results` already holds (a tilted barcode is read
/// by the rows and by the columns).
template <typename Place> void add(ZXing::Results &found, ZXing::Results &results, Place place) {
    for (auto &result : found) {
        bool known = std::any_of(results.begin(), results.end(), [&](const ZXing::Result &other) {
            return other.format() == result.format() && other.bytes() == result.bytes();
        });
        if (known) continue;
        auto corners = result.position();
        for (auto &corner : corners) corner = place(corner);
        result.setPosition(corners);
        results.push_back(std::move(result));
    }
}

/// The codes of `formats` (ZXing::BarcodeFormat bits) in the `width` × `height` `luma`, at
/// most `maxCodes`.
ZXing::Results read(const uint8_t *luma, int width, int height, uint32_t formats, int maxCodes) {
    ZXing::Results results;
    if (uint32_t matrix = formats & ~linearFormats) {
        ZXing::ImageView frame(luma, width, height, ZXing::ImageFormat::Lum);
        ZXing::Results found = ZXing::ReadBarcodes(frame, hintsFor(matrix, maxCodes));
        add(found, results, [](ZXing::PointI point) { return point; });
        uint32_t again = matrix & secondLook;
        for (const auto &result : results) again &= ~static_cast<uint32_t>(result.format());
        if (again != 0) {
            auto hints = hintsFor(again, maxCodes - static_cast<int>(results.size()));
            hints.setBinarizer(ZXing::Binarizer::GlobalHistogram);
            // zxing-cpp's quick search: its thorough one also follows the bars of any barcode
            // in view as a Data Matrix's edges, and reads no more of the corpus.
            hints.setTryHarder(false);
            bool large = width >= 64 && height >= 64;
            int scale = large ? 2 : 1, tileWidth = width * 5 / 8, tileHeight = height * 5 / 8;
            // The whole frame (part 0), then the corner tiles, until one gives a code.
            for (int part = 0; part < (large ? 5 : 1); part++) {
                bool whole = part == 0, right = part % 2 == 0, bottom = part > 2;
                int x = whole || !right ? 0 : width - tileWidth, y = whole || !bottom ? 0 : height - tileHeight;
                auto view =
                    frame.cropped(x, y, whole ? width : tileWidth, whole ? height : tileHeight).subsampled(scale);
                found = ZXing::ReadBarcodes(view, hints);
                add(found, results,
                    [=](ZXing::PointI point) { return ZXing::PointI(x + scale * point.x, y + scale * point.y); });
                if (!found.empty()) break;
            }
        }
    }
    uint32_t linear = formats & linearFormats;
    int left = maxCodes - static_cast<int>(results.size());
    if (linear == 0 || left <= 0) return results;
    auto hints = hintsFor(linear, left);
    hints.setTryRotate(false);
    // Every third row; then every third column, as the rows of a view that turns the frame
    // about its diagonal (a barcode read mirrored is still read).
    ZXing::ImageView rows(luma, width, (height + lineStep - 1) / lineStep, ZXing::ImageFormat::Lum, width * lineStep, 1);
    ZXing::Results found = ZXing::ReadBarcodes(rows, hints);
    add(found, results, [](ZXing::PointI point) { return ZXing::PointI(point.x, point.y * lineStep); });
    ZXing::ImageView columns(luma, height, (width + lineStep - 1) / lineStep, ZXing::ImageFormat::Lum, lineStep, width);
    left = maxCodes - static_cast<int>(results.size());
    if (left <= 0) return results;
    hints.setMaxNumberOfSymbols(symbolLimit(left));
    found = ZXing::ReadBarcodes(columns, hints);
    add(found, results, [](ZXing::PointI point) { return ZXing::PointI(point.y * lineStep, point.x); });
    return results;
}

/// The codes of `request`'s formats in `luma`, as one reply.
std::vector<uint8_t> decode(const scanbridge_decode_request &request, const std::vector<uint8_t> &luma) {
    ZXing::Results results = read(luma.data(), static_cast<int>(request.width), static_cast<int>(request.height),
                                  request.formats, static_cast<int>(request.max_codes));

    scanbridge_decode_reply reply = {SCANBRIDGE_DECODE_MAGIC, 0};
    std::vector<uint8_t> out(sizeof reply);
    for (const auto &result : results) {
        const ZXing::ByteArray &content = result.bytes();
        if (!result.isValid() || content.size() > SCANBRIDGE_DECODE_MAX_CODE_BYTES || reply.count == request.max_codes)
            continue;
        scanbridge_decode_code code = {};
        code.format = static_cast<uint32_t>(result.format());
        std::strncpy(code.aim, result.symbologyIdentifier().c_str(), sizeof code.aim - 1);
        for (int corner = 0; corner < 4; corner++) {
            code.corners[2 * corner] = result.position()[corner].x;
            code.corners[2 * corner + 1] = result.position()[corner].y;
        }
        code.length = static_cast<uint32_t>(content.size());
        const auto *header = reinterpret_cast<const uint8_t *>(&code);
        out.insert(out.end(), header, header + sizeof code);
        out.insert(out.end(), content.begin(), content.end());
        reply.count++;
    }
    std::memcpy(out.data(), &reply, sizeof reply);
    return out;
}

/// What `--check-sandbox CALL` does once confined, to show the confinement holds (the
/// suites run it): opening a file, a socket or running a program kills the decoder with
/// SIGSYS. Status 1 means the call was let through.
int checkSandbox(const char *call) {
    if (std::strcmp(call, "open") == 0) {
        open("/etc/hostname", O_RDONLY);
    } else if (std::strcmp(call, "socket") == 0) {
        socket(AF_INET, SOCK_STREAM, 0);
    } else if (std::strcmp(call, "exec") == 0) {
        char *const argv[] = {const_cast<char *>("/bin/true"), nullptr};
        execv(argv[0], argv);
    } else {
        return 2;
    }
    return 1;
}

}  // namespace

int main(int argc, char **argv) {
    // A failure is the daemon's to report, at most one warning every 10 s: the assertion's
    // own line, once for each frame it ends, would fill the daemon's log. A decoder that
    // cannot run at all (a library missing) says so before main, where stderr is the daemon's.
    int discard = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (discard > STDERR_FILENO) {
        dup2(discard, STDERR_FILENO);
        close(discard);
    }
    if (!sandbox::enter()) return sandbox::cannotConfine;
    if (argc == 3 && std::strcmp(argv[1], "--check-sandbox") == 0) return checkSandbox(argv[2]);
    // Said once, confined: a decoder that cannot run or cannot confine itself ends before this.
    scanbridge_decode_reply hello = {SCANBRIDGE_DECODE_MAGIC, 0};
    if (!writeAll(&hello, sizeof hello)) return 1;
    std::vector<uint8_t> luma;
    scanbridge_decode_request request;
    while (readAll(&request, sizeof request)) {
        if (request.magic != SCANBRIDGE_DECODE_MAGIC || request.width == 0 || request.height == 0 ||
            request.width > SCANBRIDGE_DECODE_MAX_SIDE || request.height > SCANBRIDGE_DECODE_MAX_SIDE ||
            request.max_codes == 0 || request.max_codes > SCANBRIDGE_DECODE_MAX_CODES) {
            return 2;
        }
        luma.resize(static_cast<size_t>(request.width) * request.height);
        if (!readAll(luma.data(), luma.size())) return 1;
        std::vector<uint8_t> reply;
        sandbox::limitFrameCPU(frameCPUSeconds);
        try {
            reply = decode(request, luma);
        } catch (const std::exception &) {
            // A frame zxing-cpp cannot take gives no code; the next is searched as usual.
            scanbridge_decode_reply none = {SCANBRIDGE_DECODE_MAGIC, 0};
            const auto *bytes = reinterpret_cast<const uint8_t *>(&none);
            reply.assign(bytes, bytes + sizeof none);
        }
        sandbox::endFrame();
        if (!writeAll(reply.data(), reply.size())) return 1;
    }
    return 0;
}
