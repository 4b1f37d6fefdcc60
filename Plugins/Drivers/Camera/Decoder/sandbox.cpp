#include "sandbox.h"

#include <csignal>
#include <initializer_list>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>

namespace {

/// AddressSanitizer reserves terabytes of shadow address space: an address-space limit
/// would stop a sanitized decoder (make test-sanitize) before its first frame.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool addressSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool addressSanitized = true;
#else
constexpr bool addressSanitized = false;
#endif
#else
constexpr bool addressSanitized = false;
#endif

/// The largest frame (8192 × 8192 luma, 64 MiB) and zxing-cpp's binarized copies of it fit
/// several times over.
constexpr rlim_t addressSpace = rlim_t(1) << 30;

bool limit(int resource, rlim_t value) {
    struct rlimit both = {value, value};
    return setrlimit(resource, &both) == 0;
}

bool limitResources() {
    // Descriptors 0 and 1 (the daemon's socket) and 2 (/dev/null): not one more.
    return limit(RLIMIT_CORE, 0) && limit(RLIMIT_NOFILE, 3) && limit(RLIMIT_FSIZE, 0) && limit(RLIMIT_NPROC, 0)
           && (addressSanitized || limit(RLIMIT_AS, addressSpace));
}

bool allowAll(scmp_filter_ctx filter, std::initializer_list<int> calls) {
    for (int call : calls)
        if (seccomp_rule_add(filter, SCMP_ACT_ALLOW, call, 0) != 0) return false;
    return true;
}

/// Memory calls that may not make a page executable: an exploit that wrote its code into
/// a frame's buffer cannot run it.
bool allowWithoutExec(scmp_filter_ctx filter, int call) {
    return seccomp_rule_add(filter, SCMP_ACT_ALLOW, call, 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0)) == 0;
}

bool installFilter() {
    // The whole process where the kernel says it can; else its thread, which is the whole
    // process too, as the decoder runs one. libseccomp asks the kernel through seccomp(),
    // which a unit's SystemCallFilter=@system-service refuses: it then loads the filter with
    // prctl().
    scmp_filter_ctx filter = seccomp_init(SCMP_ACT_KILL_PROCESS);
    if (filter == nullptr) filter = seccomp_init(SCMP_ACT_KILL_THREAD);
    if (filter == nullptr) return false;
    bool built = allowAll(filter,
                          {
                              SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(readv), SCMP_SYS(writev),
                              SCMP_SYS(brk), SCMP_SYS(munmap), SCMP_SYS(mremap), SCMP_SYS(madvise),
                              // An abort: its signal, raised at itself.
                              SCMP_SYS(rt_sigaction), SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigreturn),
                              SCMP_SYS(getpid), SCMP_SYS(gettid), SCMP_SYS(tgkill),
                              SCMP_SYS(futex), SCMP_SYS(clock_gettime), SCMP_SYS(setitimer),
                              SCMP_SYS(restart_syscall), SCMP_SYS(exit), SCMP_SYS(exit_group),
                          })
                 && allowWithoutExec(filter, SCMP_SYS(mmap)) && allowWithoutExec(filter, SCMP_SYS(mprotect))
                 // No new privileges (seccomp_load sets them) even through a set-user-ID file.
                 && seccomp_attr_set(filter, SCMP_FLTATR_CTL_NNP, 1) == 0;
    bool loaded = built && seccomp_load(filter) == 0;
    seccomp_release(filter);
    return loaded;
}

}  // namespace

namespace sandbox {

bool enter() {
    // A decoder left behind by a daemon that died mid-frame would spin on alone.
    return prctl(PR_SET_PDEATHSIG, SIGKILL) == 0 && limitResources() && installFilter();
}

void limitFrameCPU(unsigned seconds) {
    struct itimerval timer = {{0, 0}, {static_cast<time_t>(seconds), 0}};
    setitimer(ITIMER_PROF, &timer, nullptr);
}

void endFrame() {
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_PROF, &off, nullptr);
}

}  // namespace sandbox
