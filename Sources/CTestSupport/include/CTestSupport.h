// What the test kit needs of libc that Swift's Glibc module leaves out (it is behind
// _GNU_SOURCE or _XOPEN_SOURCE): pseudo-terminals, a pipe's capacity, and a spawn that
// closes every other descriptor.
#include <stddef.h>

/// Opens a new pty master (O_RDWR | O_NOCTTY | O_CLOEXEC), unlocked, and writes its slave's
/// path into `path`. Returns the master's fd, or -1 with errno.
int ctest_open_pty(char *path, size_t size);

/// F_SETPIPE_SZ: makes a pipe or FIFO hold `size` bytes (up to /proc/sys/fs/pipe-max-size
/// unless root). Returns the new capacity, or -1 with errno.
int ctest_set_pipe_size(int fd, int size);

#include <sys/types.h>

/// posix_spawn of `argv[0]` with standard input /dev/null, standard output and error
/// appended to `output`, no other descriptor of this process (closefrom 3), the default
/// signal mask and dispositions. Returns 0 and the pid in `pid`, or an errno.
int ctest_spawn(pid_t *pid, char *const argv[], char *const envp[], const char *output);
