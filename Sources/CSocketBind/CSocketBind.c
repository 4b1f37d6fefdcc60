#define _GNU_SOURCE
#include "CSocketBind.h"
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

struct bind_job {
    int fd;
    const char *path;
    mode_t mode;
    long long group;
    int error;
};

// The umask is process-wide: changing it on a thread that shares it would give any file
// another thread creates meanwhile (a database page, a log) the socket's looser mode. This
// thread unshares it first, so only the socket sees it; the thread ends after the bind.
static void *bind_on_own_thread(void *argument) {
    struct bind_job *job = argument;
    if (unshare(CLONE_FS) != 0) {
        job->error = -errno;
        return NULL;
    }
    umask(~job->mode & 0777);
    // The fsgid is per thread already; a refused change leaves it as it was.
    if (job->group >= 0) setfsgid((gid_t)job->group);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(job->path) >= sizeof(address.sun_path)) {
        job->error = ENAMETOOLONG;
        return NULL;
    }
    strcpy(address.sun_path, job->path);
    job->error = bind(job->fd, (struct sockaddr *)&address, sizeof(address)) == 0 ? 0 : errno;
    return NULL;
}

int csocketbind_bind(int fd, const char *path, mode_t mode, long long group) {
    struct bind_job job = {.fd = fd, .path = path, .mode = mode, .group = group, .error = 0};
    pthread_t thread;
    int created = pthread_create(&thread, NULL, bind_on_own_thread, &job);
    if (created != 0) return created;
    pthread_join(thread, NULL);
    return job.error;
}
