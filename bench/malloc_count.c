/* malloc_count.so: an LD_PRELOAD malloc counter for the bench's memory rows
 * (not part of the library). Valgrind replaces malloc, so callgrind cannot
 * say who allocated what a row's mallinfo2 delta counts; this counts the
 * real glibc malloc instead.
 *
 * ibv_bench calls malloc_count_mark(1) before a memory row's creates and
 * malloc_count_mark(0) after them (found with dlsym: without this library
 * nothing happens). In between, every malloc/calloc/realloc/memalign/free
 * is counted, in usable bytes as mallinfo2's uordblks counts them, and
 * logged to stderr with its call stack, one line each:
 *   mc +64 (total +64): lib(+0x1234) lib(+0x5678) ...
 * The offsets resolve with addr2line -f -e LIB. The mark(0) line sums up.
 * Read the calls, not the row's figure: the counter's own first backtrace
 * (libgcc_s's load) moves malloc's state (Debian's mem_qp_heap read 497.1 B
 * with it preloaded, 480.0 B without).
 *
 * Build: cc -O2 -g -shared -fPIC -o malloc_count.so bench/malloc_count.c
 * Run:   LD_PRELOAD=$PWD/malloc_count.so ibv_bench -s 0.05 mem_qp_heap
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

#define DEPTH 12

static int on;			/* counting (between the marks) */
static long net, calls;		/* usable bytes allocated less freed; calls */
static __thread int inside;	/* in our own bookkeeping: do not count */

/* one line: the change, the running total and the callers (no malloc:
 * backtrace_symbols_fd writes straight to the fd) */
static void note(long d)
{
	void *f[DEPTH];
	char b[64];
	int n, k;

	if (!on || inside || !d)
		return;
	inside = 1;
	net += d;
	calls++;
	n = backtrace(f, DEPTH);
	k = snprintf(b, sizeof(b), "mc %+ld (total %+ld):\n", d, net);
	if (write(2, b, (size_t)k) < 0)
		n = 0;
	/* frame 0 is note, 1 our wrapper */
	if (n > 2)
		backtrace_symbols_fd(f + 2, n - 2, 2);
	inside = 0;
}

void malloc_count_mark(int start)
{
	char b[96];
	int k;

	if (start) {
		/* backtrace loads libgcc_s (which mallocs) on first use */
		void *f[2];
		inside = 1;
		backtrace(f, 2);
		inside = 0;
		net = calls = 0;
		on = 1;
		return;
	}
	on = 0;
	k = snprintf(b, sizeof(b), "mc end: %ld calls, net %+ld usable bytes\n", calls, net);
	if (write(2, b, (size_t)k) < 0)
		return;
}

void *malloc(size_t n)
{
	void *p = __libc_malloc(n);
	if (p)
		note((long)malloc_usable_size(p));
	return p;
}

void *calloc(size_t n, size_t m)
{
	void *p = __libc_calloc(n, m);
	if (p)
		note((long)malloc_usable_size(p));
	return p;
}

void *realloc(void *q, size_t n)
{
	long old = q ? (long)malloc_usable_size(q) : 0;
	void *p = __libc_realloc(q, n);
	if (p || !n)
		note((p ? (long)malloc_usable_size(p) : 0) - old);
	return p;
}

void free(void *p)
{
	if (p)
		note(-(long)malloc_usable_size(p));
	__libc_free(p);
}

void *memalign(size_t a, size_t n)
{
	void *p = __libc_memalign(a, n);
	if (p)
		note((long)malloc_usable_size(p));
	return p;
}

void *aligned_alloc(size_t a, size_t n)
{
	return memalign(a, n);
}

int posix_memalign(void **r, size_t a, size_t n)
{
	void *p = memalign(a, n);
	if (!p)
		return 12; /* ENOMEM */
	*r = p;
	return 0;
}
