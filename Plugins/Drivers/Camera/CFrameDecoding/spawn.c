#define _GNU_SOURCE
#include "scanbridge_frame_decoding.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int scanbridge_decoder_spawn(const char *path, pid_t *pid, int *socket) {
    // None of the daemon's environment: the decoder needs none, and what a daemon's
    // environment may hold (a credential a unit passes, the paths of its files) is not for
    // a process that reads hostile frames. One setting only: Swift's crash backtracer off,
    // which SwiftPM's runtime would start on each abort zxing-cpp's assertion causes, costing
    // time for a frame the daemon already reports.
    char *environment[] = {(char *)"SWIFT_BACKTRACE=enable=no", NULL};

    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) return errno;
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
