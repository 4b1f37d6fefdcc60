// Pseudo-terminals for the test kit: Swift's Glibc module leaves out posix_openpt,
// grantpt, unlockpt and ptsname (they need _XOPEN_SOURCE).
#include <stddef.h>

/// Opens a new pty master (O_RDWR | O_NOCTTY | O_CLOEXEC), unlocked, and writes its slave's
/// path into `path`. Returns the master's fd, or -1 with errno.
int cpty_open(char *path, size_t size);
