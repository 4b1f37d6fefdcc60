// Binds a Unix socket with the file mode and group it is to have, so that nothing changes
// them through its path afterwards (<sched.h>'s unshare needs _GNU_SOURCE, which Swift's
// Glibc module does not define).

#include <sys/types.h>

/// Binds `fd` to `path` on a thread of its own, whose umask (and, when `group` is not -1,
/// file-system gid) no other thread shares: the socket file is created with mode `mode`,
/// and with group `group` when the kernel lets this process take it (root, or the
/// daemon's own group); otherwise with the group the folder gives its files.
/// Returns 0, the errno of what failed, or minus the errno of `unshare(CLONE_FS)` when the
/// thread could not have a umask of its own (a seccomp filter that refuses `unshare`).
int csocketbind_bind(int fd, const char *path, mode_t mode, long long group);
