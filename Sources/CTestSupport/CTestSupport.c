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

#include <signal.h>
#include <spawn.h>

int ctest_spawn(pid_t *pid, char *const argv[], char *const envp[], const char *output) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    sigset_t none, all;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0600);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    int result = posix_spawn(pid, argv[0], &actions, &attributes, argv, envp);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return result;
}
