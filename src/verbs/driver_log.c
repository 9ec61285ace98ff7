/* __verbs_log, rdma-core's printf-style log call for provider plugins.
 *
 * Why C: the function is variadic and must format its arguments as printf
 * does. Stable Rust can neither define a C-variadic function nor receive a
 * va_list (both are nightly-only), and reading the argument registers by
 * hand would be wrong for doubles and for more than a few arguments. So
 * these few lines are C, built by build.rs with the system C compiler;
 * whether and where to log is decided in Rust (driver.rs). */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

/* Set once by the library (verbs/driver.rs) before any plugin runs: the
 * highest level printed and the stream; NULL stays quiet. */
static uint32_t log_level;
static FILE *log_fp;

__attribute__((visibility("hidden")))
void ibverbs_c_set_verbs_log(uint32_t level, FILE *fp)
{
	log_level = level;
	log_fp = fp;
}

__attribute__((format(printf, 3, 4)))
void __verbs_log(void *ctx, uint32_t level, const char *fmt, ...)
{
	FILE *out;
	va_list ap;
	int saved;

	(void)ctx;
	out = log_fp;
	if (!out || level > log_level || !fmt)
		return;
	saved = errno;
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	errno = saved;
}

__asm__(".symver __verbs_log, __verbs_log@@IBVERBS_PRIVATE_34");
/* The same function for rdma-core 65's plugins (its signature is unchanged). */
extern __typeof__(__verbs_log) __verbs_log_65 __attribute__((alias("__verbs_log")));
__asm__(".symver __verbs_log_65, __verbs_log@IBVERBS_PRIVATE_65");
