#define _GNU_SOURCE
#include "scanbridge_frame_decoding.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

extern char **environ;

int scanbridge_decoder_spawn(const char *path, pid_t *pid, int *socket) {
    // The daemon's environment, but for Swift's crash backtracer, which SwiftPM's runtime
    // would start on each abort zxing-cpp's assertion causes: it costs time and writes a
    // backtrace of pages into the daemon's log for a frame the daemon already reports.
    size_t count = 0;
    while (environ != NULL && environ[count] != NULL) count++;
    char **environment = calloc(count + 2, sizeof *environment);
    if (environment == NULL) return ENOMEM;
    size_t kept = 0;
    for (size_t index = 0; index < count; index++)
        if (strncmp(environ[index], "SWIFT_BACKTRACE=", 16) != 0) environment[kept++] = environ[index];
    environment[kept] = (char *)"SWIFT_BACKTRACE=enable=no";

    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
        int failure = errno;
        free(environment);
        return failure;
    }
    // A whole 1280×720 frame fits in one send: the camera's thread hands it over at once.
    int size = 1 << 20;
    setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
    setsockopt(pair[1], SOL_SOCKET, SO_RCVBUF, &size, sizeof size);

    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    sigset_t none, all;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
    posix_spawn_file_actions_adddup2(&actions, pair[1], 0);
    posix_spawn_file_actions_adddup2(&actions, pair[1], 1);
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    char *const argv[] = {(char *)path, NULL};
    int result = posix_spawn(pid, path, &actions, &attributes, argv, environment);
    free(environment);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    close(pair[1]);
    if (result != 0) {
        close(pair[0]);
        return result;
    }
    *socket = pair[0];
    return 0;
}
