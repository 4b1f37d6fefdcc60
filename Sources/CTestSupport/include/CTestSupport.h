// What the test kit needs of libc that Swift's Glibc module leaves out (it is behind
// _GNU_SOURCE or _XOPEN_SOURCE): pseudo-terminals, and a pipe's capacity.
#include <stddef.h>

/// Opens a new pty master (O_RDWR | O_NOCTTY | O_CLOEXEC), unlocked, and writes its slave's
/// path into `path`. Returns the master's fd, or -1 with errno.
int ctest_open_pty(char *path, size_t size);

/// F_SETPIPE_SZ: makes a pipe or FIFO hold `size` bytes (up to /proc/sys/fs/pipe-max-size
/// unless root). Returns the new capacity, or -1 with errno.
int ctest_set_pipe_size(int fd, int size);
