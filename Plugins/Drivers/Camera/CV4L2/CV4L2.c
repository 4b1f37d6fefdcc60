#include "CV4L2.h"
#include <linux/videodev2.h>
#include <string.h>
#include <sys/ioctl.h>

/// A memory-mapped video capture buffer's description, zeroed but for its index.
static struct v4l2_buffer capture_buffer(uint32_t index) {
    struct v4l2_buffer buffer;
    memset(&buffer, 0, sizeof buffer);
    buffer.index = index;
    buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    buffer.memory = V4L2_MEMORY_MMAP;
    return buffer;
}

int cv4l2_query_capabilities(int fd, uint32_t *capabilities, char *card, size_t size) {
    struct v4l2_capability cap;
    memset(&cap, 0, sizeof cap);
    int result = ioctl(fd, VIDIOC_QUERYCAP, &cap);
    if (result < 0) return result;
    *capabilities = (cap.capabilities & V4L2_CAP_DEVICE_CAPS) ? cap.device_caps : cap.capabilities;
    if (size > 0) {
        size_t length = strnlen((const char *)cap.card, sizeof cap.card);
        if (length >= size) length = size - 1;
        memcpy(card, cap.card, length);
        card[length] = 0;
    }
    return result;
}

int cv4l2_format_at(int fd, uint32_t index, uint32_t *pixelformat) {
    struct v4l2_fmtdesc description;
    memset(&description, 0, sizeof description);
    description.index = index;
    description.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    int result = ioctl(fd, VIDIOC_ENUM_FMT, &description);
    if (result >= 0) *pixelformat = description.pixelformat;
    return result;
}

int cv4l2_set_format(int fd, uint32_t *width, uint32_t *height, uint32_t *pixelformat,
                     uint32_t *bytesperline, uint32_t *sizeimage) {
    struct v4l2_format format;
    memset(&format, 0, sizeof format);
    format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    format.fmt.pix.width = *width;
    format.fmt.pix.height = *height;
    format.fmt.pix.pixelformat = *pixelformat;
    format.fmt.pix.field = V4L2_FIELD_NONE;
    int result = ioctl(fd, VIDIOC_S_FMT, &format);
    if (result < 0) return result;
    *width = format.fmt.pix.width;
    *height = format.fmt.pix.height;
    *pixelformat = format.fmt.pix.pixelformat;
    *bytesperline = format.fmt.pix.bytesperline;
    *sizeimage = format.fmt.pix.sizeimage;
    return result;
}

int cv4l2_request_buffers(int fd, uint32_t count) {
    struct v4l2_requestbuffers request;
    memset(&request, 0, sizeof request);
    request.count = count;
    request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    request.memory = V4L2_MEMORY_MMAP;
    int result = ioctl(fd, VIDIOC_REQBUFS, &request);
    return result < 0 ? result : (int)request.count;
}

int cv4l2_query_buffer(int fd, uint32_t index, uint32_t *offset, uint32_t *length) {
    struct v4l2_buffer buffer = capture_buffer(index);
    int result = ioctl(fd, VIDIOC_QUERYBUF, &buffer);
    if (result < 0) return result;
    *offset = buffer.m.offset;
    *length = buffer.length;
    return result;
}

int cv4l2_queue_buffer(int fd, uint32_t index) {
    struct v4l2_buffer buffer = capture_buffer(index);
    return ioctl(fd, VIDIOC_QBUF, &buffer);
}

int cv4l2_dequeue_buffer(int fd, uint32_t *index, uint32_t *bytesused, int *damaged) {
    struct v4l2_buffer buffer = capture_buffer(0);
    int result = ioctl(fd, VIDIOC_DQBUF, &buffer);
    if (result < 0) return result;
    *index = buffer.index;
    *bytesused = buffer.bytesused;
    *damaged = (buffer.flags & V4L2_BUF_FLAG_ERROR) != 0;
    return result;
}

int cv4l2_stream(int fd, int on) {
    int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    return ioctl(fd, on ? VIDIOC_STREAMON : VIDIOC_STREAMOFF, &type);
}
