#include "CHeap.h"
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

// At most four heaps however many threads allocate. glibc gives each thread that meets a
// locked heap one of its own (up to 8 a core), and every device thread, event loop and
// database queue that allocates in a burst keeps its heap's high-water mark. Four trades
// memory against lock waits: more heaps hold more for no more throughput, fewer make the
// threads wait on each other's locks (docs/architecture.md, Design decisions).
// A constructor, so that it holds before the first thread starts: an arena made earlier is
// never given up. An operator's own MALLOC_ARENA_MAX (or glibc.malloc.arena_max tunable) wins.
__attribute__((constructor)) static void cheap_limit_arenas(void) {
    const char *tunables = getenv("GLIBC_TUNABLES");
    if (getenv("MALLOC_ARENA_MAX") || (tunables && strstr(tunables, "arena_max"))) return;
    mallopt(M_ARENA_MAX, 4);
}

void cheap_trim(void) {
    malloc_trim(0);
}
