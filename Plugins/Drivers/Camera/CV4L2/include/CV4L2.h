// The V4L2 ioctls the camera driver needs, as plain functions: Swift cannot import the
// VIDIOC_* macros (_IOWR) of linux/videodev2.h, and v4l2_buffer's unions are clumsy there.
// Each returns what ioctl returns: -1 with errno on failure (ENOTTY for a node that is not
// V4L2, ENODEV once the device is unplugged, EAGAIN from a non-blocking DQBUF with no frame).
#include <stdint.h>
#include <stddef.h>

/// V4L2_CAP_VIDEO_CAPTURE, V4L2_CAP_STREAMING, V4L2_CAP_DEVICE_CAPS.
enum {
    CV4L2_CAP_VIDEO_CAPTURE = 0x00000001,
    CV4L2_CAP_STREAMING = 0x04000000,
    CV4L2_CAP_DEVICE_CAPS = 0x80000000,
};

/// VIDIOC_QUERYCAP: the node's capabilities (device_caps when the driver sets
/// V4L2_CAP_DEVICE_CAPS, which describe this node rather than the whole device), and its
/// card name (NUL-terminated, at most `size` bytes).
int cv4l2_query_capabilities(int fd, uint32_t *capabilities, char *card, size_t size);
/// VIDIOC_ENUM_FMT for video capture: the pixel format at `index` (EINVAL past the last).
int cv4l2_format_at(int fd, uint32_t index, uint32_t *pixelformat);
/// VIDIOC_S_FMT for video capture, progressive: asks for the size and format, and gives
/// back what the driver chose (size, format, bytes per line, bytes per frame).
int cv4l2_set_format(int fd, uint32_t *width, uint32_t *height, uint32_t *pixelformat,
                     uint32_t *bytesperline, uint32_t *sizeimage);
/// VIDIOC_REQBUFS with memory-mapped buffers: asks for `count` (0 frees them); returns the
/// number granted, or -1.
int cv4l2_request_buffers(int fd, uint32_t count);
/// VIDIOC_QUERYBUF: where buffer `index` is to be mapped, and its length.
int cv4l2_query_buffer(int fd, uint32_t index, uint32_t *offset, uint32_t *length);
/// VIDIOC_QBUF: hands buffer `index` to the driver to fill.
int cv4l2_queue_buffer(int fd, uint32_t index);
/// VIDIOC_DQBUF: takes a filled buffer back: its index, the bytes used, and whether the
/// driver flagged it as damaged (V4L2_BUF_FLAG_ERROR).
int cv4l2_dequeue_buffer(int fd, uint32_t *index, uint32_t *bytesused, int *damaged);
/// VIDIOC_STREAMON (on != 0) or VIDIOC_STREAMOFF for video capture.
int cv4l2_stream(int fd, int on);
