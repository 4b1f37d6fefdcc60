#define _GNU_SOURCE
#include "CTestSupport.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ctest_open_pty(char *path, size_t size) {
    int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0) return -1;
    char *name = NULL;
    if (grantpt(master) != 0 || unlockpt(master) != 0 || (name = ptsname(master)) == NULL || strlen(name) >= size) {
        int saved = errno ? errno : ENAMETOOLONG;
        close(master);
        errno = saved;
        return -1;
    }
    strcpy(path, name);
    return master;
}

int ctest_set_pipe_size(int fd, int size) { return fcntl(fd, F_SETPIPE_SZ, size); }
